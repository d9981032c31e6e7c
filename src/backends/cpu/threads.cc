// The cpu backend's thread count (threads.h): one oneTBB arena, and OpenBLAS told the same.
#include "backends/cpu/threads.h"

#include <cblas.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "backends/cpu/native_kernels.h"
#include "backends/cpu/profile.h"
#include "support/error.h"

namespace kiln::cpu {
namespace {

int defaultThreads() {
  if (const char* env = std::getenv("KILN_NUM_THREADS")) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end == env || *end != '\0' || n < 1 || n > 1024)
      throw Error(ErrorKind::Usage, "KILN_NUM_THREADS must be a thread count from 1 to 1024, got '" +
                                        std::string(env) + "'");
    return static_cast<int>(n);
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

struct Pool {
  int threads = 0;
  std::unique_ptr<tbb::global_control> limit;  // oneTBB caps workers at the core count
  std::unique_ptr<tbb::task_arena> arena;
};

Pool& state() {
  static Pool p;
  return p;
}

Pool& pool() {
  if (!state().arena) setThreadCount(0);
  return state();
}

}  // namespace

void setThreadCount(int n) {
  Pool& p = state();
  p.threads = n > 0 ? n : defaultThreads();
  p.arena.reset();
  p.limit.reset();
  p.limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<size_t>(std::max(p.threads, defaultThreads())));
  p.arena = std::make_unique<tbb::task_arena>(p.threads);
  // GEMMs are cut into pieces on this pool (gemm.cc), each on one OpenBLAS thread.
  openblas_set_num_threads(1);
}

int threadCount() { return pool().threads; }

void inKernelPool(const std::function<void()>& work) { pool().arena->execute(work); }

void runParts(int64_t parts, const std::function<void(int64_t)>& part) {
  if (parts <= 1) {
    if (parts == 1) part(0);
    return;
  }
  inKernelPool([&] { tbb::parallel_for(int64_t{0}, parts, [&](int64_t t) { part(t); }); });
}

namespace {

// Runs [0, n) in chunks of about `grain` iterations that start and end at multiples of
// `unit` (or at n).
void runRange(KernelFn fn, int64_t n, int64_t grain, int64_t unit, void* const* buffers, Profile* profile,
              const Op* op) {
  auto chunk = [&](int64_t begin, int64_t end) {
    if (!profile) return fn(buffers, begin, end);
    const double start = profile->now();
    fn(buffers, begin, end);
    profile->chunk(*op, start, profile->now());
  };
  if (n > grain && n > unit && threadCount() > 1) {
    const int64_t units = (n + unit - 1) / unit;
    inKernelPool([&] {
      tbb::parallel_for(tbb::blocked_range<int64_t>(0, units, std::max<int64_t>(1, grain / unit)),
                        [&](const tbb::blocked_range<int64_t>& r) {
                          chunk(r.begin() * unit, std::min(n, r.end() * unit));
                        });
    });
  } else if (n > 0) {
    chunk(0, n);
  }
}

}  // namespace

void runKernel(const Kernel& kernel, void* const* buffers, Profile* profile, const Op* op) {
  if (!op) profile = nullptr;
  runRange(kernel.fn(), kernel.iterations, kernel.grain, kernel.unit, buffers, profile, op);
  if (kernel.twoPhase())
    runRange(kernel.combine(), kernel.combineIterations, kernel.combineGrain, 1, buffers, profile, op);
}

}  // namespace kiln::cpu
