// The Eigen references of bench/compare.sh: W1-W4 and W7 as the array expressions a C++
// expert would write (Eigen's vectorized exp/tanh/logistic, output buffers allocated
// once and reused), rows split over T threads. Prints "W<n> <median ms>" per workload.
//   eigen_workloads THREADS
#include <Eigen/Dense>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "parallel.h"

using Array = Eigen::ArrayXf;
using Rows = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const int64_t n = int64_t{1} << 24;
  const int reps = 9;
  {
    Array a = Array::Random(n), b = Array::Random(n), c = Array::Random(n), d(n);
    double t = medianSeconds(reps, [&] {
      parallelFor(threads, n, [&](int64_t lo, int64_t hi) {
        d.segment(lo, hi - lo) = a.segment(lo, hi - lo) * b.segment(lo, hi - lo) + c.segment(lo, hi - lo);
      });
    });
    std::printf("W1 %.3f\n", t * 1e3);
    double t2 = medianSeconds(reps, [&] {
      parallelFor(threads, n, [&](int64_t lo, int64_t hi) {
        auto x = a.segment(lo, hi - lo);
        d.segment(lo, hi - lo) = (x * 0.5f + 1.0f).tanh() * x.logistic() - x * x;
      });
    });
    std::printf("W2 %.3f\n", t2 * 1e3);
  }
  {
    const int64_t r = 4096, cols = 4096;
    Rows x = Rows::Random(r, cols), y(r, cols);
    double t = medianSeconds(reps, [&] {
      parallelFor(threads, r, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          float m = x.row(i).maxCoeff();
          y.row(i) = (x.row(i) - m).exp();
          y.row(i) /= y.row(i).sum();
        }
      });
    });
    std::printf("W3 %.3f\n", t * 1e3);
  }
  {
    const int64_t r = 8192, cols = 1024;
    Rows x = Rows::Random(r, cols), y(r, cols);
    Eigen::Array<float, 1, Eigen::Dynamic> gamma = Eigen::Array<float, 1, Eigen::Dynamic>::Random(cols),
                                           beta = Eigen::Array<float, 1, Eigen::Dynamic>::Random(cols);
    double t = medianSeconds(reps, [&] {
      parallelFor(threads, r, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          float mean = x.row(i).mean();
          float var = x.row(i).square().mean() - mean * mean;
          y.row(i) = (x.row(i) - mean) * (1.0f / std::sqrt(var + 1e-5f)) * gamma + beta;
        }
      });
    });
    std::printf("W4 %.3f\n", t * 1e3);
  }
  {
    const int64_t r = 8192, cols = 8192;
    Rows x = Rows::Random(r, cols);
    Eigen::ArrayXf rowSums(r);
    std::vector<Eigen::Array<float, 1, Eigen::Dynamic>> colParts(static_cast<size_t>(std::max(threads, 1)),
                                                                 Eigen::Array<float, 1, Eigen::Dynamic>(cols));
    Eigen::Array<float, 1, Eigen::Dynamic> colSums(cols);
    double t = medianSeconds(5, [&] {
      // One pass over the rows: each thread sums its rows and its share of every column.
      int64_t chunk = (r + threads - 1) / std::max(threads, 1);
      parallelFor(threads, r, [&](int64_t lo, int64_t hi) {
        auto& part = colParts[static_cast<size_t>(lo / std::max<int64_t>(chunk, 1)) % colParts.size()];
        part.setZero();
        for (int64_t i = lo; i < hi; ++i) {
          rowSums(i) = x.row(i).sum();
          part += x.row(i);
        }
      });
      colSums.setZero();
      for (const auto& part : colParts) colSums += part;
    });
    std::printf("W7 %.3f\n", t * 1e3);
  }
  return 0;
}
