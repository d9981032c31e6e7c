// GEMM on OpenBLAS (gemm.h).
//
// OpenBLAS's results depend on how a GEMM is cut: on some CPUs (Zen 3's kernels, say)
// the bits change with its thread count, and even a one-thread call sums an element in
// another order when the call's shape puts it in an edge tile. So kiln cuts every GEMM
// itself, at points that depend on the GEMM's shape alone, runs each piece on one
// OpenBLAS thread and spreads the pieces over its own pool: the same bits at every
// thread count, and OpenBLAS's threads never compete with the kernels' (DESIGN §9).
#include "backends/cpu/gemm.h"

#include <cblas.h>

#include <algorithm>

#include "backends/cpu/threads.h"

namespace kiln::cpu {
namespace {

// Pieces: columns of C when it is at least as wide as tall, else rows. A piece of
// columns packs only its own columns of B; a piece of rows packs all of B again, so
// rows are cut only for tall, narrow products (im2col's).
constexpr int64_t kPieceColumns = 256;
constexpr int64_t kPieceRows = 128;
// Below this many multiply-adds a GEMM is one piece (cutting it costs more than it saves).
constexpr int64_t kMinCutWork = int64_t{1} << 21;

void gemmPiece(DType t, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda,
               const void* b, int64_t ldb, void* c, int64_t ldc) {
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
  const int64_t size = t == DType::F32 ? 4 : 8;
  const auto* A = static_cast<const char*>(a);
  const auto* B = static_cast<const char*>(b);
  auto* C = static_cast<char*>(c);
  const bool byColumns = n >= m;
  const int64_t length = byColumns ? n : m;
  const int64_t step = byColumns ? kPieceColumns : kPieceRows;
  const int64_t pieces = m * n * k < kMinCutWork ? 1 : (length + step - 1) / step;
  runParts(pieces, [&](int64_t p) {
    const int64_t from = p * step, count = pieces == 1 ? length : std::min(step, length - from);
    if (byColumns) {
      // Columns [from, from + count) of B (rows of B when it is transposed) and of C.
      const char* bp = B + (transposeB ? from * ldb : from) * size;
      gemmPiece(t, transposeA, transposeB, m, count, k, a, lda, bp, ldb, C + from * size, n);
    } else {
      // Rows [from, from + count) of A (its columns when it is transposed) and of C.
      const char* ap = A + (transposeA ? from : from * lda) * size;
      gemmPiece(t, transposeA, transposeB, count, n, k, ap, lda, b, ldb, C + from * n * size, n);
    }
  });
}

}  // namespace kiln::cpu
