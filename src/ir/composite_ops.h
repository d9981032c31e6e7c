// Composite ops: ops kiln defines by a decomposition alone. Adding one is one entry in
// composite_ops.cc and nothing else: it has no row in the tables of ir/ops/ and no entry in any
// layer's table. The registry numbers it after the primitives; its type rule follows from
// its traits (elementwise, broadcasting); lower-chlo replaces it by its decomposition, and
// the interpreter runs that decomposition, so every layer sees primitives only.
// docs/ops.md: when an op should be a composite, a primitive or another kind.
#pragma once

#include <vector>

#include "ir/op_registry.h"

namespace kiln {

// The rows of the composite ops, without their opcodes (the registry assigns them);
// `primitives` are the rows of the tables, for facts a composite takes from its parts.
std::vector<OpInfo> compositeOps(std::span<const OpInfo> primitives);

}  // namespace kiln
