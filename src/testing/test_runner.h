// Running StableHLO test suites (`kiln test`): the .mlir files under some paths are
// loaded (and optionally prepared, e.g. optimized), and every test of theirs (see
// check_harness.h) runs, in parallel, each under a time limit.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "backends/cpu/native_kernels.h"
#include "ir/module.h"
#include "testing/check_harness.h"
#include "testing/parallel_on_devices.h"

namespace kiln::testing {

// What the cpu backend did over a run: how much of the programs became native code.
struct BackendSummary {
  size_t modules = 0;
  size_t kernels = 0;          // native kernels compiled
  size_t blasOps = 0;          // dot_generals run on BLAS
  uint64_t kernelRuns = 0;     // their executions
  double compileSeconds = 0;   // in all, over every module
  size_t tests = 0;              // tests run on the backend
  size_t testsWithFallbacks = 0; // of them, those whose module left some op to the interpreter
  // Ops left to the interpreter, by reason ("unsupported: stablehlo.sort (no native code yet)").
  std::map<std::string, size_t> declined;
};

struct TestOptions {
  int jobs = 1;
  double timeLimitSeconds = 60;
  // interp (the reference interpreter) or cpu (the module after cpu::cpuPipeline(), its
  // kernels native; the rest still interpreted). Another name is a usage error.
  std::string backend = "interp";
  // The cpu backend's disk cache of machine code (`kiln test` passes
  // defaultCacheDir()); empty: none.
  std::string cacheDir;
  // How much LLVM optimizes the cpu backend's kernels (a tiered compile's tests run on
  // whichever code is in place when they run).
  cpu::CompileTier tier = cpu::CompileTier::Optimized;
  // Filled in for the cpu backend.
  BackendSummary* summary = nullptr;
  // interpreter.run_parallel ops whose processes all run one function run as one
  // executable on that many devices of the backend's plugin (parallel_on_devices.h);
  // false, or for the others: on the interpreter's threads.
  bool parallelOnDevices = true;
  // Filled in with where the run_parallel ops ran.
  ParallelOnDevices::Counts* parallelCounts = nullptr;
  // Applied to every module after it is parsed, before its tests run (kiln test
  // --optimize runs the optimization pipeline here). An error fails the file's tests.
  std::function<void(Module&)> prepare;
  // Called after each test (from worker threads, one call at a time).
  std::function<void(const TestResult&)> onResult;
};

// Every .mlir file under `paths` (files or folders, recursively), sorted.
std::vector<std::string> findTestFiles(const std::vector<std::string>& paths);

// The op family a test file belongs to: `dot_general_float32_4_3.mlir` -> dot_general.
std::string familyOf(const std::string& file);

// Loads and runs the tests of `files`. A file kiln cannot load because it uses an
// unsupported feature gives one Skipped result with the reason; any other load error
// one Failed result.
std::vector<TestResult> runTests(const std::vector<std::string>& files, const TestOptions& options);

}  // namespace kiln::testing
