// stablehlo.convolution as one GEMM (blas_dot.h runs it): the lhs's windows laid out as
// the rows of a matrix (im2col: one row per output batch and position, one column per
// window position and input feature), times the kernel as a [window x input features,
// output features] matrix. A 1x1 convolution over [batch, spatial..., feature] data with
// a [.., input, output] kernel needs no copy at all: its operands already are those
// matrices. BLAS sums in its own order, so results agree with the interpreter within
// rounding, as BLAS dots do.
//
// The cost model (convolutionOnBlas): a GEMM wins where each output sums many products
// and there are output features enough to fill GEMM's tiles; the rest (depthwise and
// other grouped convolutions, batch groups, a few products per output like a 3x3 filter
// of one channel) runs as the direct kernel (contraction_emitter.cc).
#pragma once

#include <optional>
#include <string>

#include "ir/module.h"

namespace kiln::cpu {

// Why the convolution `op` stays with the direct kernel, or nothing when it runs on BLAS.
std::optional<std::string> convolutionOffBlas(const Op& op);

// How it runs there, for the report: "1x1: one GEMM on the operands" or "im2col, then one GEMM".
std::string blasConvolutionPath(const Op& op);

// Runs it over dense row-major buffers whose elements are all of type `t` (f32 or f64:
// blas_dot.h stages f16/bf16 through f32).
void blasConvolutionInto(const Op& op, DType t, const void* lhs, const void* rhs, void* out);

}  // namespace kiln::cpu
