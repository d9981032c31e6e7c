// Narrow products, C = A·B with 8, 16, 24 or 32 columns: a CNN's convolutions over few
// channels, as GEMMs over their windows (the digits step: 4096 x 288 times 288 x 16).
// OpenBLAS's kernels are cut for wide panels and reach about a third of the machine's
// rate there. Here a few rows of C stay in registers while B's rows stream from cache,
// each element of A broadcast against them. Each element of C sums over k in order
// with fused multiply-adds, whatever rows a call is given: the bits do not depend on
// how the rows are cut among threads.
#pragma once

#include <cstdint>

#include "ir/dtype.h"

namespace kiln::cpu {

// Whether narrowGemm computes this product (f32, B not transposed, n a multiple of 8
// up to 32, B small enough to stay in cache, a CPU with AVX2 and FMA).
bool narrowGemmTakes(DType t, bool transposeB, int64_t n, int64_t k);

// Rows [from, to) of C (row stride ldc) = A (m x k; stored k x m, row stride lda, when
// transposed) · B (k x n, row stride ldb).
void narrowGemm(bool transposeA, int64_t from, int64_t to, int64_t n, int64_t k, const float* a, int64_t lda,
                const float* b, int64_t ldb, float* c, int64_t ldc);

}  // namespace kiln::cpu
