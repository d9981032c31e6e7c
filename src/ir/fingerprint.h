// Module fingerprints: a 128-bit digest of a program's structure, the key of every
// compile cache. The same program gives the same fingerprint in every process and run,
// whatever its SSA names and source locations: values are numbered in definition order,
// and locations (which say where a program came from, not what it computes) are left out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "support/digest.h"

namespace kiln {

// Functions (names, visibility, types, argument and result attributes), their ops in order
// with operands, result types, attributes and regions, and the module's attributes.
Fingerprint fingerprint(const Module& module);

// One op with its regions, as a piece of code: the types of its operands (numbered in
// the order it first reads them, so an operand read twice differs from two operands),
// then the op as above; `marked` are values inside it that the caller computes
// elsewhere and hands to the op's code (a dot_epilogue's dot, on BLAS), by their numbers:
// the ops defining them count by their result types alone, and values only those ops
// read by their numbers alone (the code never reads them). Ops that are the same up to
// names and locations get the same digest (the cpu backend compiles such kernels once).
// None when a region reads a value from outside the op other than through its operands:
// its code would depend on that value.
std::optional<Fingerprint> codeFingerprint(const Op& op, const std::vector<const Value*>& marked = {});

}  // namespace kiln
