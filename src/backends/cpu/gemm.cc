// GEMM on OpenBLAS (gemm.h).
#include "backends/cpu/gemm.h"

#include <cblas.h>

namespace kiln::cpu {

void rowMajorGemm(DType t, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a,
                  int64_t lda, const void* b, int64_t ldb, void* c) {
  const CBLAS_TRANSPOSE ta = transposeA ? CblasTrans : CblasNoTrans, tb = transposeB ? CblasTrans : CblasNoTrans;
  auto i = [](int64_t v) { return static_cast<blasint>(v); };
  if (t == DType::F32)
    cblas_sgemm(CblasRowMajor, ta, tb, i(m), i(n), i(k), 1.0f, static_cast<const float*>(a), i(lda),
                static_cast<const float*>(b), i(ldb), 0.0f, static_cast<float*>(c), i(n));
  else
    cblas_dgemm(CblasRowMajor, ta, tb, i(m), i(n), i(k), 1.0, static_cast<const double*>(a), i(lda),
                static_cast<const double*>(b), i(ldb), 0.0, static_cast<double*>(c), i(n));
}

}  // namespace kiln::cpu
