// dot_general through OpenBLAS's GEMM: each batch is one sgemm/dgemm call. Operands whose
// dimensions are already in GEMM order (batch, free, contracting for the left; batch,
// contracting, free for the right), or in its transpose, are passed as they are, with
// the transpose folded into the call's flags; others are first copied into that order.
#pragma once

#include <optional>
#include <string>

#include "interp/host_value.h"
#include "ir/module.h"

namespace kiln::cpu {

// Why BLAS cannot run `op` (not a dot_general or dot, or element types GEMM lacks), or
// nothing when it can.
std::optional<std::string> blasDeclines(const Op& op);

// Runs a dot_general that blasDeclines accepted.
interp::HostValues blasDot(const Op& op, const interp::HostValues& operands);
// The same over dense row-major buffers of the operands' and the result's types.
void blasDotInto(const Op& op, const void* lhs, const void* rhs, void* out);

}  // namespace kiln::cpu
