// Load: the cpu backend from 8 threads for KILN_SOAK_SECONDS (default 10), compiles and
// executions mixed. Each step of a thread either runs one of the shared executables
// (compiled once, called from every thread at once) on one of its fixed inputs, which
// must give exactly what it gave on that input before the threads started, or compiles
// a program of its own (a new constant: new machine code), runs it, compares it bit for
// bit with the interpreter (integer arithmetic: exact on both) and drops it. The
// resident memory is sampled twice a second and must stay flat once warm: the last
// quarter's median within 10% + 64 MiB of the second quarter's. Prints the throughput
// and the memory over time.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>
#include <unistd.h>

#include "backends/cpu/cpu_test_util.h"
#include "interp/interpreter.h"

namespace kiln::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// Shared programs: float math whose result each input fixes.
std::string sharedProgram(int k) {
  return "func.func @main(%x: tensor<256xf32>, %y: tensor<256xf32>) -> (tensor<256xf32>, tensor<f32>) {\n"
         "  %c = stablehlo.constant dense<" + std::to_string(0.5 + k) + "> : tensor<256xf32>\n"
         "  %m = stablehlo.multiply %x, %c : tensor<256xf32>\n"
         "  %t = stablehlo.tanh %m : tensor<256xf32>\n"
         "  %a = stablehlo.add %t, %y : tensor<256xf32>\n"
         "  %z = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %r = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [0] : "
         "(tensor<256xf32>, tensor<f32>) -> tensor<f32>\n"
         "  return %a, %r : tensor<256xf32>, tensor<f32>\n}\n";
}

// Programs of one thread's own: integer arithmetic, with a constant no other has.
std::string ownProgram(int64_t constant) {
  return "func.func @main(%x: tensor<64x32xi32>) -> (tensor<32x64xi32>, tensor<i32>) {\n"
         "  %c = stablehlo.constant dense<" + std::to_string(constant) + "> : tensor<64x32xi32>\n"
         "  %m = stablehlo.multiply %x, %c : tensor<64x32xi32>\n"
         "  %a = stablehlo.add %m, %x : tensor<64x32xi32>\n"
         "  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<64x32xi32>) -> tensor<32x64xi32>\n"
         "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
         "  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 1] : "
         "(tensor<64x32xi32>, tensor<i32>) -> tensor<i32>\n"
         "  return %t, %s : tensor<32x64xi32>, tensor<i32>\n}\n";
}

Literal randomLiteral(const Type& type, std::mt19937_64& rng) {
  Literal lit(type);
  std::uniform_real_distribution<double> u(-3, 3);
  for (int64_t i = 0; i < lit.numElements(); ++i) {
    if (isFloat(type.dtype())) lit.setFloat(i, u(rng));
    else lit.setInt(i, static_cast<int64_t>(rng() % 2001) - 1000);
  }
  return lit;
}

bool sameBits(const interp::HostValues& a, const interp::HostValues& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Literal& x = a[i].tensor();
    const Literal& y = b[i].tensor();
    if (x.type() != y.type() ||
        std::memcmp(x.storage(), y.storage(), static_cast<size_t>(x.type().byteSize())) != 0)
      return false;
  }
  return true;
}

double residentMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

TEST(SoakTest, EightThreadsCompileAndRunWithFlatMemory) {
  const char* env = std::getenv("KILN_SOAK_SECONDS");
  const double seconds = env ? std::atof(env) : 10;
  // The shared executables and what each gives on its fixed inputs.
  struct Shared {
    test_util::Compiled compiled;
    std::vector<interp::HostValues> inputs, outputs;
  };
  std::vector<Shared> shared;
  std::mt19937_64 rng(1);
  for (int k = 0; k < 3; ++k) {
    Shared s{test_util::compile(sharedProgram(k)), {}, {}};
    const Function& fn = *s.compiled.module->lookup("main");
    for (int i = 0; i < 4; ++i) {
      interp::HostValues in;
      for (const Type& t : fn.paramTypes()) in.push_back(randomLiteral(t, rng));
      s.outputs.push_back(s.compiled.exe->call(fn, in));
      s.inputs.push_back(std::move(in));
    }
    shared.push_back(std::move(s));
  }

  std::atomic<bool> stop{false};
  std::atomic<int64_t> runs{0}, compiles{0}, nextConstant{7};
  std::mutex failuresMutex;
  std::vector<std::string> failures;
  auto fail = [&](const std::string& what) {
    std::lock_guard<std::mutex> lock(failuresMutex);
    if (failures.size() < 10) failures.push_back(what);
  };
  auto work = [&](int thread) {
    std::mt19937_64 local(static_cast<uint64_t>(100 + thread));
    while (!stop.load()) {
      if (local() % 8 != 0) {  // mostly runs of the shared executables
        const Shared& s = shared[local() % shared.size()];
        const size_t i = local() % s.inputs.size();
        if (!sameBits(s.compiled.exe->call(*s.compiled.module->lookup("main"), s.inputs[i]), s.outputs[i]))
          fail("a shared executable gave other bits on thread " + std::to_string(thread));
        runs.fetch_add(1);
        continue;
      }
      const std::string text = ownProgram(nextConstant.fetch_add(1));
      test_util::Compiled own = test_util::compile(text);
      compiles.fetch_add(1);
      const Function& fn = *own.module->lookup("main");
      interp::HostValues in = {randomLiteral(fn.paramTypes()[0], local)};
      interp::HostValues expected = interp::Interpreter(*own.reference).call(*own.reference->lookup("main"), in);
      if (!sameBits(own.exe->call(fn, in), expected)) fail("a program of its own differs from the interpreter");
      runs.fetch_add(1);
    }
  };
  std::vector<double> samples;
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back(work, t);
  while (std::chrono::duration<double>(Clock::now() - start).count() < seconds) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    samples.push_back(residentMiB());
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  const double took = std::chrono::duration<double>(Clock::now() - start).count();

  for (const std::string& f : failures) ADD_FAILURE() << f;
  ASSERT_GE(samples.size(), 4u);
  const size_t q = samples.size() / 4;
  const double second = median({samples.begin() + static_cast<ptrdiff_t>(q), samples.begin() + static_cast<ptrdiff_t>(2 * q)});
  const double last = median({samples.end() - static_cast<ptrdiff_t>(q), samples.end()});
  std::printf("[ measured ] soak: %.0f s on 8 threads: %lld runs (%.0f/s), %lld compiles (%.1f/s); resident MiB "
              "at 25%% %.0f, 50%% %.0f, 75%% %.0f, 100%% %.0f\n",
              took, static_cast<long long>(runs.load()), static_cast<double>(runs.load()) / took,
              static_cast<long long>(compiles.load()), static_cast<double>(compiles.load()) / took, samples[q],
              samples[2 * q], samples[3 * q], samples.back());
  EXPECT_GT(compiles.load(), 0);
  EXPECT_LE(last, second * 1.10 + 64) << "resident memory grew from " << second << " MiB to " << last << " MiB";
}

}  // namespace
}  // namespace kiln::cpu
