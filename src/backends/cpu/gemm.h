// The one GEMM call the cpu backend makes (dots and convolutions both end here, blas_dot.h
// and blas_convolution.h), cut into pieces by its shape, each piece on oneDNN's matmul or
// OpenBLAS's CBLAS (onednn_gemm.h).
#pragma once

#include <cstdint>

#include "ir/dtype.h"

namespace kiln::cpu {

// C = A * B (or with A or B transposed) on row-major f32 or f64 matrices: C is m x n
// with row stride n.
void rowMajorGemm(DType t, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a,
                  int64_t lda, const void* b, int64_t ldb, void* c);
// The same with operands of type `t` and C of type `out`: also bf16 operands to a bf16 or
// f32 C, where oneDNN takes them (oneDnnGemmTakes).
void rowMajorGemm(DType t, DType out, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a,
                  int64_t lda, const void* b, int64_t ldb, void* c);

// `batch` such products of the same sizes, A and B advancing by strideA and strideB
// elements, C by m x n: small ones side by side on the pool (each computed as alone, so
// the bits do not depend on the thread count), large ones one after another.
void rowMajorBatchedGemm(DType t, DType out, bool transposeA, bool transposeB, int64_t batch, int64_t m, int64_t n,
                         int64_t k, const void* a, int64_t lda, int64_t strideA, const void* b, int64_t ldb,
                         int64_t strideB, void* c);

}  // namespace kiln::cpu
