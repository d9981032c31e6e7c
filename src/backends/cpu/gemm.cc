// GEMM on OpenBLAS and oneDNN (gemm.h).
//
// OpenBLAS's results depend on how a GEMM is cut: on some CPUs (Zen 3's kernels, say)
// the bits change with its thread count, and even a one-thread call sums an element in
// another order when the call's shape puts it in an edge tile. So kiln cuts every GEMM
// itself, at points that depend on the GEMM's shape alone, runs each piece on one
// OpenBLAS thread and spreads the pieces over its own pool: the same bits at every
// thread count, and OpenBLAS's threads never compete with the kernels' (DESIGN §9).
#include "backends/cpu/gemm.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "backends/cpu/narrow_gemm.h"
#include "backends/cpu/onednn_gemm.h"
#include "backends/cpu/threads.h"
#include "support/error.h"

namespace kiln::cpu {
namespace {

// Skinny products, C = A·Bᵀ with few rows (a transformer's layers on a short sequence:
// BERT's 7 x 768 activations against 768 x 3072 weights): each element of C is a dot
// of a row of A with a row of B, both contiguous, so B streams from memory once while
// A stays in L1. OpenBLAS packs B first and takes about twice as long there. Each
// element sums in 8 lanes over k (then lane by lane, then the tail), the same order
// wherever the columns are cut.
constexpr int64_t kSkinnyRows = 16;
constexpr int64_t kSkinnyMinK = 64;

__attribute__((target("avx2,fma"))) float sumLanes(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Rows [i0, i0 + R) of C (row stride ldc) at column j: each the dot of a row of A with
// row j of B. R is a constant so that the R accumulators live in registers.
template <int R>
__attribute__((target("avx2,fma"))) void rowDots(int64_t i0, int64_t j, int64_t k, const float* a, int64_t lda,
                                                 const float* bj, float* c, int64_t ldc) {
  const int64_t vk = k / 8 * 8;
  // (Unrolled by hand: at -O2 GCC keeps a loop over the rows, and the accumulators in memory.)
  __m256 acc[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
  for (int64_t p = 0; p < vk; p += 8) {
    const __m256 bv = _mm256_loadu_ps(bj + p);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(a + (i0 + r) * lda + p), bv, acc[r]);
  }
  for (int r = 0; r < R; ++r) {
    float sum = sumLanes(acc[r]);
    for (int64_t p = vk; p < k; ++p) sum = std::fma(a[(i0 + r) * lda + p], bj[p], sum);
    c[(i0 + r) * ldc + j] = sum;
  }
}

// Columns [from, to) of C (m x ldc) = A (m x k, row stride lda) · B (n x k, row stride ldb)ᵀ,
// four rows of A at a time against each row of B.
__attribute__((target("avx2,fma"))) void skinnyRowDots(int64_t m, int64_t k, const float* a, int64_t lda,
                                                       const float* b, int64_t ldb, float* c, int64_t ldc,
                                                       int64_t from, int64_t to) {
  for (int64_t j = from; j < to; ++j) {
    const float* bj = b + j * ldb;
    int64_t i0 = 0;
    for (; i0 + 4 <= m; i0 += 4) rowDots<4>(i0, j, k, a, lda, bj, c, ldc);
    switch (m - i0) {
      case 3: rowDots<3>(i0, j, k, a, lda, bj, c, ldc); break;
      case 2: rowDots<2>(i0, j, k, a, lda, bj, c, ldc); break;
      case 1: rowDots<1>(i0, j, k, a, lda, bj, c, ldc); break;
      default: break;
    }
  }
}

bool skinny(DType t, bool transposeA, bool transposeB, int64_t m, int64_t k) {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return avx2 && t == DType::F32 && !transposeA && transposeB && m <= kSkinnyRows && k >= kSkinnyMinK;
}

// Pieces: columns of C when it is at least as wide as tall, else rows. A piece of
// columns packs only its own columns of B; a piece of rows packs all of B again, so
// rows are cut only for tall, narrow products (im2col's).
constexpr int64_t kPieceColumns = 256;
constexpr int64_t kPieceRows = 128;

// The width of a product's pieces of columns: about kPieceColumns, a multiple of 32, in
// an even count below 8, so that two threads share them evenly (BERT's 768 columns were
// 3 pieces, one thread idle a third of the time; a convolution to 256 features was one
// piece: 612 -> 261 ms at 2 threads). It depends on n alone, and so do the bits.
int64_t pieceColumns(int64_t n) {
  int64_t pieces = (n + kPieceColumns - 1) / kPieceColumns;
  if (pieces % 2 == 1 && pieces < 8) ++pieces;
  return ((n + pieces - 1) / pieces + 31) / 32 * 32;
}
// Below this many multiply-adds a GEMM is one piece (cutting it costs more than it saves).
constexpr int64_t kMinCutWork = int64_t{1} << 21;

// One piece, on the calling thread: on oneDNN where it has a fast kernel (onednn_gemm.h:
// bf16 operands always, f32 with AVX-512), else on OpenBLAS.
void gemmPiece(DType t, DType out, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a,
               int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc) {
  if (oneDnnGemm(t, out, transposeA, transposeB, m, n, k, a, lda, b, ldb, c, ldc)) return;
  if (t != out || (t != DType::F32 && t != DType::F64))
    throw Error(ErrorKind::Internal, "internal error: no GEMM for " + std::string(name(t)) + " operands to " +
                                         std::string(name(out)) + " on this CPU");
  const CBLAS_TRANSPOSE ta = transposeA ? CblasTrans : CblasNoTrans, tb = transposeB ? CblasTrans : CblasNoTrans;
  auto i = [](int64_t v) { return static_cast<blasint>(v); };
  if (t == DType::F32)
    cblas_sgemm(CblasRowMajor, ta, tb, i(m), i(n), i(k), 1.0f, static_cast<const float*>(a), i(lda),
                static_cast<const float*>(b), i(ldb), 0.0f, static_cast<float*>(c), i(ldc));
  else
    cblas_dgemm(CblasRowMajor, ta, tb, i(m), i(n), i(k), 1.0, static_cast<const double*>(a), i(lda),
                static_cast<const double*>(b), i(ldb), 0.0, static_cast<double*>(c), i(ldc));
}

}  // namespace

void rowMajorGemm(DType t, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a,
                  int64_t lda, const void* b, int64_t ldb, void* c) {
  rowMajorGemm(t, t, transposeA, transposeB, m, n, k, a, lda, b, ldb, c);
}

void rowMajorGemm(DType t, DType out, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a,
                  int64_t lda, const void* b, int64_t ldb, void* c) {
  const int64_t size = storageBytes(t), outSize = storageBytes(out);
  const auto* A = static_cast<const char*>(a);
  const auto* B = static_cast<const char*>(b);
  auto* C = static_cast<char*>(c);
  if (t == out && narrowGemmTakes(t, transposeB, n, k)) {
    const int64_t pieces = m * n * k < kMinCutWork ? 1 : (m + kPieceRows - 1) / kPieceRows;
    runParts(pieces, [&](int64_t p) {
      const int64_t from = pieces == 1 ? 0 : p * kPieceRows, to = pieces == 1 ? m : std::min(m, from + kPieceRows);
      narrowGemm(transposeA, from, to, n, k, static_cast<const float*>(a), lda, static_cast<const float*>(b), ldb,
                 static_cast<float*>(c), n);
    });
    return;
  }
  const bool byColumns = n >= m;
  const bool rowDots = byColumns && t == out && skinny(t, transposeA, transposeB, m, k);
  const int64_t length = byColumns ? n : m;
  const int64_t step = byColumns ? pieceColumns(n) : kPieceRows;
  const int64_t pieces = m * n * k < kMinCutWork ? 1 : (length + step - 1) / step;
  runParts(pieces, [&](int64_t p) {
    const int64_t from = p * step, count = pieces == 1 ? length : std::min(step, length - from);
    if (rowDots) {
      skinnyRowDots(m, k, static_cast<const float*>(a), lda, static_cast<const float*>(b), ldb, static_cast<float*>(c),
                    n, from, from + count);
    } else if (byColumns) {
      // Columns [from, from + count) of B (rows of B when it is transposed) and of C.
      const char* bp = B + (transposeB ? from * ldb : from) * size;
      gemmPiece(t, out, transposeA, transposeB, m, count, k, a, lda, bp, ldb, C + from * outSize, n);
    } else {
      // Rows [from, from + count) of A (its columns when it is transposed) and of C.
      const char* ap = A + (transposeA ? from : from * lda) * size;
      gemmPiece(t, out, transposeA, transposeB, count, n, k, ap, lda, b, ldb, C + from * n * outSize, n);
    }
  });
}

void rowMajorBatchedGemm(DType t, DType out, bool transposeA, bool transposeB, int64_t batch, int64_t m, int64_t n,
                         int64_t k, const void* a, int64_t lda, int64_t strideA, const void* b, int64_t ldb,
                         int64_t strideB, void* c) {
  const int64_t size = storageBytes(t), outSize = storageBytes(out);
  auto one = [&](int64_t i) {
    rowMajorGemm(t, out, transposeA, transposeB, m, n, k, static_cast<const char*>(a) + i * strideA * size, lda,
                 static_cast<const char*>(b) + i * strideB * size, ldb, static_cast<char*>(c) + i * m * n * outSize);
  };
  if (m * n * k >= kMinCutWork || batch == 1) {
    for (int64_t i = 0; i < batch; ++i) one(i);
    return;
  }
  // Each product is one piece: whole products side by side, each computed as alone.
  const int64_t parts = std::min<int64_t>(batch, threadCount());
  runParts(parts, [&](int64_t p) {
    for (int64_t i = p * batch / parts; i < (p + 1) * batch / parts; ++i) one(i);
  });
}

}  // namespace kiln::cpu
