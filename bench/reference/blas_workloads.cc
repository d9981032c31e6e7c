// The GEMMs of W5 and W6 called directly on OpenBLAS (cblas_sgemm, the same library and
// thread count kiln uses), for bench/compare.sh: W5's target is to be within 5% of
// this, and W6's floor is its GEMMs at this rate plus its other bytes at the triad.
// Prints "W5 <median ms>" (the forward pass's two GEMMs) and "W6gemm <median ms>" (the
// training step's five: forward, and the gradients of both weights and of the hidden
// layer), then "sgemm <GFLOP/s>" of a 1024^3 product (the GEMM rate of bench/models.sh).
//   blas_workloads THREADS
#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "parallel.h"

namespace {

// C[m x n] = op(A) op(B), row-major, with A m x k (or k x m when transposed).
struct Gemm {
  int m, n, k;
  bool ta, tb;
};

void run(const Gemm& g, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c) {
  cblas_sgemm(CblasRowMajor, g.ta ? CblasTrans : CblasNoTrans, g.tb ? CblasTrans : CblasNoTrans, g.m, g.n, g.k, 1.0f,
              a.data(), g.ta ? g.m : g.k, b.data(), g.tb ? g.k : g.n, 0.0f, c.data(), g.n);
}

double time(const std::vector<Gemm>& gemms) {
  std::vector<std::vector<float>> as, bs, cs;
  for (const Gemm& g : gemms) {
    as.emplace_back(static_cast<size_t>(g.m) * g.k, 0.5f);
    bs.emplace_back(static_cast<size_t>(g.k) * g.n, 0.25f);
    cs.emplace_back(static_cast<size_t>(g.m) * g.n, 0.0f);
  }
  return medianSeconds(15, [&] {
    for (size_t i = 0; i < gemms.size(); ++i) run(gemms[i], as[i], bs[i], cs[i]);
  });
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  openblas_set_num_threads(threads);
  const Gemm h{256, 512, 784, false, false};      // x @ w1
  const Gemm o{256, 10, 512, false, false};       // a @ w2
  const Gemm dw2{512, 10, 256, true, false};      // a^T @ dlogits
  const Gemm da{256, 512, 10, false, true};       // dlogits @ w2^T
  const Gemm dw1{784, 512, 256, true, false};     // x^T @ dh
  std::printf("W5 %.3f\n", time({h, o}) * 1e3);
  std::printf("W6gemm %.3f\n", time({h, o, dw2, da, dw1}) * 1e3);
  // The GEMM rate of bench/models.sh's floors: a large square sgemm, in GFLOP/s.
  const Gemm square{1024, 1024, 1024, false, false};
  std::printf("sgemm %.2f\n", 2.0 * 1024 * 1024 * 1024 / time({square}) / 1e9);
  return 0;
}
