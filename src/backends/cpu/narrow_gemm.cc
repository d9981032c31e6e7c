// Narrow products on AVX2 (narrow_gemm.h).
#include "backends/cpu/narrow_gemm.h"

#include <immintrin.h>

namespace kiln::cpu {
namespace {

// B is read again for each group of rows: up to this size it stays close (a weight
// gradient's 4096 x 32, 512 KB from L2, ran at half OpenBLAS's speed).
constexpr int64_t kMaxBBytes = int64_t{64} << 10;

// Rows [i0, i0 + R) of C: R x (8 * V) accumulators, one broadcast of A's element per
// row and step of k. R and V are constants so that the accumulators live in registers
// (R * V + V + 1 of the 16).
template <int R, int V>
__attribute__((target("avx2,fma"))) void narrowRows(bool transposeA, int64_t i0, int64_t k, const float* a,
                                                    int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  __m256 acc[R][V];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    __m256 bv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) bv[v] = _mm256_loadu_ps(b + p * ldb + 8 * v);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(transposeA ? a + p * lda + i0 + r : a + (i0 + r) * lda + p);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) _mm256_storeu_ps(c + (i0 + r) * ldc + 8 * v, acc[r][v]);
}

// Rows [from, to) in groups of R, then the rest a row at a time.
template <int R, int V>
void narrowRange(bool transposeA, int64_t from, int64_t to, int64_t k, const float* a, int64_t lda, const float* b,
                 int64_t ldb, float* c, int64_t ldc) {
  int64_t i = from;
  for (; i + R <= to; i += R) narrowRows<R, V>(transposeA, i, k, a, lda, b, ldb, c, ldc);
  for (; i < to; ++i) narrowRows<1, V>(transposeA, i, k, a, lda, b, ldb, c, ldc);
}

}  // namespace

bool narrowGemmTakes(DType t, bool transposeB, int64_t n, int64_t k) {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return avx2 && t == DType::F32 && !transposeB && n > 0 && n <= 32 && n % 8 == 0 &&
         k * n * static_cast<int64_t>(sizeof(float)) <= kMaxBBytes;
}

void narrowGemm(bool transposeA, int64_t from, int64_t to, int64_t n, int64_t k, const float* a, int64_t lda,
                const float* b, int64_t ldb, float* c, int64_t ldc) {
  switch (n / 8) {
    case 1: narrowRange<4, 1>(transposeA, from, to, k, a, lda, b, ldb, c, ldc); break;
    case 2: narrowRange<4, 2>(transposeA, from, to, k, a, lda, b, ldb, c, ldc); break;
    case 3: narrowRange<3, 3>(transposeA, from, to, k, a, lda, b, ldb, c, ldc); break;
    default: narrowRange<2, 4>(transposeA, from, to, k, a, lda, b, ldb, c, ldc); break;
  }
}

}  // namespace kiln::cpu
