// dot_general and convolution through GEMM (gemm.h: OpenBLAS or oneDNN). A dot's batches
// are one GEMM each: an operand whose batch, row and column dimensions (batch, free,
// contracting for the left; batch, contracting, free for the right) each collapse into
// one stride, with its rows or its columns contiguous, is read where it is, a transposed
// one through the call's flags; others are first copied into that order. f16 and bf16 operands and results are staged
// through f32 (f32_staging.h): GEMM sums in f32, as the interpreter accumulates them, and
// the result is rounded once. A convolution runs on oneDNN where it takes it
// (onednn_convolution.h), else as one GEMM over its windows (blas_convolution.h), where
// its cost model says that wins.
#pragma once

#include <optional>
#include <string>

#include "interp/host_value.h"
#include "ir/module.h"

namespace kiln::cpu {

// Why BLAS does not run `op` (not a dot_general, dot or convolution, element types GEMM
// lacks, a convolution the direct kernel does better), or nothing when it does.
std::optional<std::string> blasDeclines(const Op& op);

// Why GEMM cannot take the element types of the dot or convolution `op` (or nothing).
std::optional<std::string> gemmTypesDecline(const Op& op);

// Which library a dot blasDeclines accepted runs on, for the report: "on oneDNN, bf16 as
// it is", "on oneDNN", "on OpenBLAS, through f32" or "on OpenBLAS" (GEMM pieces that
// kiln's own skinny and narrow kernels take aside: gemm.cc).
std::string dotPath(const Op& op);

// How a convolution blasDeclines accepted runs, for the report: on oneDNN
// (onednn_convolution.h) where it takes it, else as one GEMM (blas_convolution.h).
std::string convolutionPath(const Op& op);

// Runs an op that blasDeclines accepted.
interp::HostValues blasRun(const Op& op, const interp::HostValues& operands);
// The same over dense row-major buffers of the operands' and the result's types.
void blasInto(const Op& op, const void* lhs, const void* rhs, void* out);

}  // namespace kiln::cpu
