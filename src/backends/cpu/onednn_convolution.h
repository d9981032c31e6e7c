// stablehlo.convolution on oneDNN (Debian's libdnnl 2.6): direct convolutions with the
// best kernels the CPU has (AVX2, AVX-512, and for bf16 AVX512-BF16 or AMX tiles), where
// they beat im2col and a GEMM (blas_convolution.h). Taken: 2-D convolutions in JAX's
// default layout ([batch, height, width, feature] data and result, a [height, width, in,
// out] kernel, or [height, width, out, in] as in its input gradients), one group, no lhs dilation or window reversal, f32 x f32 -> f32 or
// bf16 x bf16 -> bf16/f32. bf16 runs natively (products exact in f32, sums in f32, the
// result rounded once, as the interpreter computes it), so it needs no widened copies.
//
// oneDNN sums in its own order, as BLAS does: results agree with the interpreter within
// rounding. kiln cuts each image into pieces of output rows by the shape alone and runs
// each piece single-threaded on the backend's pool (OpenMP's own threads competed with
// the pool for the cores: a 3x3 layer at 2 threads took 0.8 or 16 ms by chance), so the
// bits do not depend on the thread count (tested); they do depend on the CPU's
// instruction set (an AMX machine and an AVX2 one sum bf16 products differently).
// KILN_ONEDNN=off leaves every convolution to the other paths (onednn_gemm.h).
#pragma once

#include <optional>
#include <string>

#include "ir/module.h"

namespace kiln::cpu {

// Why oneDNN does not run the convolution `op` (its layout, types, or a shape where
// im2col and GEMM do better), or nothing when it does.
std::optional<std::string> oneDnnConvolutionDeclines(const Op& op);

// How it runs there, for the report: "oneDNN brgconv:avx512_core_amx_bf16".
std::string oneDnnConvolutionPath(const Op& op);

// Runs it over dense row-major buffers of the operands' and the result's types, on the
// backend's threads, when oneDNN takes it; returns false, computing nothing, when it
// declines (one lookup of its primitive either way: this runs at every call).
bool oneDnnConvolutionInto(const Op& op, const void* lhs, const void* rhs, void* out);

}  // namespace kiln::cpu
