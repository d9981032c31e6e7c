// Running StableHLO test suites (`kiln test`): the .mlir files under some paths are
// loaded (and optionally prepared, e.g. optimized), compiled through a plugin, and every
// test of theirs (see check_harness.h) runs, in parallel, as an execution on one of the
// plugin's devices under a time limit: the way a program runs outside the tests.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/module.h"
#include "testing/check_harness.h"
#include "testing/parallel_on_devices.h"

namespace kiln::testing {

// What the backend's plugin said about the modules of a run (Executable::statistics,
// summed over the modules: the cpu plugin's kernels, BLAS dots, compile seconds, kernel
// runs and the ops it left to its interpreter, by reason).
struct BackendSummary {
  size_t modules = 0;
  std::map<std::string, double> statistics;
  size_t tests = 0;               // tests run on the plugin
  size_t testsWithFallbacks = 0;  // of them, those whose module left some op to an interpreter ("interpreted_ops")
};

struct TestOptions {
  int jobs = 1;
  double timeLimitSeconds = 60;
  // The plugin the tests run on ("interp", "cpu", or any on KILN_PLUGIN_PATH): each module
  // is compiled once through it and each test run as an execution of its own entry.
  std::string backend = "interp";
  // The runtime's compilation cache (`kiln test` passes defaultCacheDir()); empty: none.
  std::string cacheDir;
  runtime::Optimization optimization = runtime::Optimization::Default;
  // Filled in with what the plugin said.
  BackendSummary* summary = nullptr;
  // Tests that hold an interpreter.run_parallel run on the host's interpreter, which runs
  // each run_parallel whose processes it can as one executable on that many devices of
  // the backend's plugin (parallel_on_devices.h); false, or for the others: on the
  // interpreter's threads.
  bool parallelOnDevices = true;
  // Filled in with where the run_parallel ops ran.
  ParallelOnDevices::Counts* parallelCounts = nullptr;
  // Applied to every module after it is parsed, before it is compiled (kiln test
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
