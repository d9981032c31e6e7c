// Running StableHLO test programs: every function without parameters that contains a
// check op is one test. Tests run in parallel, each under a time limit, and each result
// says what differed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/module.h"

namespace kiln::interp {

struct TestResult {
  enum class Status { Passed, Failed, Skipped };
  std::string file;
  std::string function;  // empty when the whole file failed to load
  std::string family;    // the op family, from the file name: add, dot_general, ...
  Status status = Status::Passed;
  std::string message;   // why it failed or was skipped
  double seconds = 0;
};

struct TestOptions {
  int jobs = 1;
  double timeLimitSeconds = 60;
  std::string backend = "interp";
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

}  // namespace kiln::interp
