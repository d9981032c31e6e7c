// f16 and bf16 dots and convolutions run on f32 GEMMs (blas_dot.h): their operands are
// widened to f32 (exactly), the products summed in f32 as the interpreter accumulates
// them, and the result rounded once to its type. These are the conversions, over whole
// buffers, on the backend's threads when large; they give the bits the interpreter and
// the compiled kernels give (round to nearest even; a NaN becomes the format's quiet NaN).
#pragma once

#include <cstdint>

#include "ir/dtype.h"

namespace kiln::cpu {

// Whether `t` is staged through f32 on GEMM's path (f16, bf16; f32 itself trivially).
bool stagesThroughF32(DType t);

// n elements of type `from` (f16, bf16 or f32) as f32s.
void widenToF32(DType from, const void* src, float* dst, int64_t n);
// n f32s rounded to `to` (f16, bf16 or f32).
void narrowFromF32(DType to, const float* src, void* dst, int64_t n);

// Where a GEMM's caller keeps its copies: the staged operands and product in f32, and a
// convolution's windows (blas_convolution.cc, f32 or f64).
enum class StagingSlot { Lhs, Rhs, Product, Windows };
// The calling thread's buffer `slot`, at least n floats, uninitialized. They outlive the
// call (each grows to the largest GEMM its thread stages), so that a GEMM neither zeroes
// nor faults in fresh pages every time it runs. Only a GEMM's caller takes them (the
// pool's parts never stage), so a thread that runs other parts while it waits never
// reuses one in use.
float* stagingBuffer(StagingSlot slot, int64_t n);

}  // namespace kiln::cpu
