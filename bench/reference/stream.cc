// The bandwidth references of bench/compare.sh, in the same run as the workloads: a
// STREAM triad a = b + 3c (12 bytes per element) and a read-only sum (4 bytes per element)
// over 2^25 floats, at T threads. Prints "triad GB/s" and "sum GB/s".
//   stream_bench THREADS
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "parallel.h"

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const int64_t n = int64_t{1} << 25;
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  parallelFor(threads, n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) a[i] = 0, b[i] = 1.0f + static_cast<float>(i % 7), c[i] = 0.5f;
  });
  double triad = medianSeconds(15, [&] {
    parallelFor(threads, n, [&](int64_t lo, int64_t hi) {
      float* __restrict pa = a.get();
      const float* __restrict pb = b.get();
      const float* __restrict pc = c.get();
      for (int64_t i = lo; i < hi; ++i) pa[i] = pb[i] + 3.0f * pc[i];
    });
  });
  std::atomic<float> sink{0};  // keeps the sums from being optimized away
  double sum = medianSeconds(15, [&] {
    parallelFor(threads, n, [&](int64_t lo, int64_t hi) {
      // Sixteen independent accumulators: the loop is limited by memory, not by add latency.
      float acc[16] = {};
      int64_t i = lo;
      for (; i + 16 <= hi; i += 16)
        for (int k = 0; k < 16; ++k) acc[k] += b[i + k];
      for (; i < hi; ++i) acc[0] += b[i];
      float s = 0;
      for (float v : acc) s += v;
      sink.store(s, std::memory_order_relaxed);
    });
  });
  std::printf("triad %.2f GB/s\nsum %.2f GB/s\n", 12.0 * n / triad / 1e9, 4.0 * n / sum / 1e9);
  return 0;
}
