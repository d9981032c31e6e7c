// stablehlo.map by decomposition: its computation applied to whole tensors at once,
// which is what map means when the computation is elementwise. The transforms
// differentiate and batch map through it (the registry's DecomposeFn).
#pragma once

#include <vector>

#include "ir/op_registry.h"

namespace kiln {

// The computation's ops rebuilt on tensors of the result's shape: scalar constants
// become splats, elementwise ops take the full tensors; nothing (the op stays) when the
// computation holds anything else or the map does not cover every dimension.
std::vector<Value*> decomposeMap(Builder& b, const Op& op);

}  // namespace kiln
