// The one GEMM call the cpu backend makes, on OpenBLAS's CBLAS (dots and convolutions
// both end here, blas_dot.h and blas_convolution.h).
#pragma once

#include <cstdint>

#include "ir/dtype.h"

namespace kiln::cpu {

// C = A * B (or with A or B transposed) on row-major f32 or f64 matrices: C is m x n
// with row stride n.
void rowMajorGemm(DType t, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a,
                  int64_t lda, const void* b, int64_t ldb, void* c);

// `batch` such products of the same sizes, A and B advancing by strideA and strideB
// elements, C by m x n: small ones side by side on the pool (each computed as alone, so
// the bits do not depend on the thread count), large ones one after another.
void rowMajorBatchedGemm(DType t, bool transposeA, bool transposeB, int64_t batch, int64_t m, int64_t n, int64_t k,
                         const void* a, int64_t lda, int64_t strideA, const void* b, int64_t ldb, int64_t strideB,
                         void* c);

}  // namespace kiln::cpu
