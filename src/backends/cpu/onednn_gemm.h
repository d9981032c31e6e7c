// GEMM pieces on oneDNN's matmul (Debian's libdnnl 2.6): its brgemm and jit GEMM kernels
// for AVX-512 (f32), and AVX512-BF16 or AMX tiles for bf16 operands, which OpenBLAS cannot take
// (Debian builds it without sbgemm). gemm.cc cuts every GEMM into pieces by its shape and
// runs each piece here on one thread, so the bits still do not depend on the thread count;
// they do depend on the CPU's instruction set. Products of bf16 are exact in f32 and summed
// in f32, and a bf16 result is rounded once, as the interpreter computes it.
//
// KILN_ONEDNN=off leaves every GEMM to OpenBLAS (and every convolution to the other
// paths: onednn_convolution.h), for comparisons.
#pragma once

#include <cstdint>

#include "ir/dtype.h"

namespace kiln::cpu {

// Whether oneDNN is used at all (KILN_ONEDNN is not "off").
bool oneDnnEnabled();

// Whether oneDNN has a fast matmul (not its reference code) for operands of type `in`
// (f32 or bf16) and a result of type `out` (f32, or bf16 for bf16 operands) on this CPU.
bool oneDnnGemmTakes(DType in, DType out);

// C (m x n, row stride ldc, of type `out`) = A·B with A (m x k, or its transpose stored
// k x m) and B (k x n, or its transpose stored n x k) of type `in`, row strides lda and
// ldb, on the calling thread alone. Returns false, computing nothing, when oneDNN has no
// fast kernel for it.
bool oneDnnGemm(DType in, DType out, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a,
                int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc);

}  // namespace kiln::cpu
