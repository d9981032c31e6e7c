// Splitting a loop over T threads for the reference programs (STREAM, Eigen): the range
// cut into T contiguous pieces aligned to 16 elements, one std::thread each.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

template <class F>
void parallelFor(int threads, int64_t n, F&& body) {
  if (threads <= 1) {
    body(int64_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  int64_t chunk = ((n + threads - 1) / threads + 15) / 16 * 16;
  for (int t = 0; t < threads; ++t) {
    int64_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    pool.emplace_back([&body, begin, end] { body(begin, end); });
  }
  for (std::thread& th : pool) th.join();
}

// The median of `reps` timings of `run` (seconds), after one warm-up.
template <class F>
double medianSeconds(int reps, F&& run) {
  run();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}
