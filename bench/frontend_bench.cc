// The frontend's figures (issue 13), for bench/frontend.sh, which runs the references
// beside it: one line per figure, "name value unit".
//   eager_dispatch_us   one small op outside jit, issued back to back (the array is
//                       read at the end), in µs per op
//   mlp_step_ms         the median training step of an MLP (batch 256, 784-512-512-10,
//                       softmax cross-entropy, SGD) under jit(value_and_grad)
//   trace_compile_ms    the first call of that step: tracing, the transforms, and
//                       compiling (cold unless the disk cache already holds it)
//   trace_ms            the same step traced and transformed only (export_stablehlo)
//   frontend_bench [RUNS] [--export FILE]   (FILE: the step as StableHLO, for kiln bench)
//   frontend_bench --eager-only [OPS]        (the dispatch loop alone, for a profiler)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Array;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Mlp {
  Array w1, b1, w2, b2, w3, b3;
  KILN_TREE(w1, b1, w2, b2, w3, b3)
};

Array randomArray(std::mt19937& rng, std::vector<int64_t> shape, float scale) {
  std::normal_distribution<float> normal(0.f, scale);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = normal(rng);
  return Array::from_vector(v, shape);
}

Array loss(const Mlp& p, const Array& x, const Array& labels) {
  Array h = kiln::nn::relu(kiln::matmul(x, p.w1) + p.b1);
  h = kiln::nn::relu(kiln::matmul(h, p.w2) + p.b2);
  Array logits = kiln::matmul(h, p.w3) + p.b3;
  return -kiln::mean(kiln::sum(kiln::one_hot(labels, 10) * kiln::nn::log_softmax(logits), -1));
}

std::pair<Mlp, Array> step(const Mlp& p, const Array& x, const Array& labels) {
  auto [value, g] = kiln::value_and_grad(loss)(p, x, labels);
  Mlp next = kiln::tree_map([](const Array& w, const Array& dw) { return w - dw * 0.01; }, p, g);
  return {next, value};
}

}  // namespace

int main(int argc, char** argv) {
  const bool eagerOnly = argc > 1 && std::string(argv[1]) == "--eager-only";
  int runs = argc > 1 && !eagerOnly ? std::atoi(argv[1]) : 20;
  try {
    // Eager dispatch: a chain of adds on f32[4] (each waits for the one before on the
    // device, not on the host).
    Array x = kiln::ones({4});
    Array y = kiln::zeros({4});
    for (int i = 0; i < 100; ++i) y = y + x;  // warm: compiled once
    y.block_until_ready();
    // The median of 5 rounds (this machine's timing drifts between rounds).
    const int ops = eagerOnly && argc > 2 ? std::atoi(argv[2]) : 20000;
    std::vector<double> rounds, issues;
    for (int round = 0; round < 5; ++round) {
      auto start = Clock::now();
      for (int i = 0; i < ops; ++i) y = y + x;
      issues.push_back(msSince(start) * 1e3 / ops);
      y.block_until_ready();
      rounds.push_back(msSince(start) * 1e3 / ops);
    }
    std::sort(rounds.begin(), rounds.end());
    std::sort(issues.begin(), issues.end());
    std::printf("eager_dispatch_us %.2f us/op (median of 5 rounds of %d; range %.2f-%.2f)\n", rounds[2], ops, rounds[0],
                rounds[4]);
    std::printf("eager_issue_us %.2f us/op (the caller's share: the ops returned before they ran)\n", issues[2]);
    if (eagerOnly) return 0;

    std::mt19937 rng(0);
    Mlp p{randomArray(rng, {784, 512}, 0.05f), kiln::zeros({512}), randomArray(rng, {512, 512}, 0.06f),
          kiln::zeros({512}), randomArray(rng, {512, 10}, 0.06f), kiln::zeros({10})};
    Array batch = randomArray(rng, {256, 784}, 1.f);
    auto start = Clock::now();
    std::vector<int32_t> labelValues(256);
    for (size_t i = 0; i < labelValues.size(); ++i) labelValues[i] = static_cast<int32_t>(i % 10);
    Array labels = Array::from_vector(labelValues, {256});

    start = Clock::now();
    std::string text = kiln::export_stablehlo(step, p, batch, labels);
    std::printf("trace_ms %.2f ms\n", msSince(start));
    if (argc > 3 && std::string(argv[2]) == "--export") std::ofstream(argv[3]) << text;

    auto train = kiln::jit(step);
    start = Clock::now();
    auto [next, value] = train(p, batch, labels);
    value.block_until_ready();
    std::printf("trace_compile_ms %.1f ms\n", msSince(start));

    std::vector<double> times;
    Mlp current = next;
    for (int r = 0; r < runs; ++r) {
      start = Clock::now();
      auto [after, l] = train(current, batch, labels);
      l.block_until_ready();
      times.push_back(msSince(start));
      current = after;
    }
    std::sort(times.begin(), times.end());
    std::printf("mlp_step_ms %.3f ms (median of %d; loss %.4f)\n", times[times.size() / 2], runs,
                value.item<float>());
    return 0;
  } catch (const kiln::ApiError& e) {
    std::fprintf(stderr, "frontend_bench: %s\n", e.what());
    return 1;
  }
}
