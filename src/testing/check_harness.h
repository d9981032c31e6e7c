// The check harness: what a test is (a function without parameters that holds a check
// op) and running one test — as an execution through a plugin, or on the host's
// interpreter — so that a check failure, an error and the time limit each become one
// result with a one-line message, the same way for every executor.
#pragma once

#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "ir/module.h"
#include "runtime/client.h"

namespace kiln::testing {

class ParallelOnDevices;  // parallel_on_devices.h

struct TestResult {
  enum class Status { Passed, Failed, Skipped };
  std::string file;
  std::string function;  // empty when the whole file failed to load
  std::string family;    // the op family, from the file name: add, dot_general, ...
  Status status = Status::Passed;
  std::string message;   // why it failed or was skipped
  double seconds = 0;
};

// A check op: check.* or a custom_call to one of the checkers the suites use.
bool isCheckOp(const Op& op);

// The tests of a module: its functions without parameters that contain a check op
// (nested regions included), in module order.
std::vector<const Function*> testFunctions(const Module& module);

// Runs test `fn` of `module` on the interpreter: it passes when it returns, fails on the
// first check that does not hold (the message says where the values differ), on any
// other error, or after `timeLimitSeconds`. Probes (interpreter.probe and
// check.expect_serialized_eq) go to a folder of their own, removed afterwards; `slot`
// makes it unique among tests that run at the same time. Fills status, message and
// seconds of `result`; never throws. `parallel`, when given, runs the
// interpreter.run_parallel ops it can (the others run on the interpreter's threads).
void runTestFunction(const Module& module, const Function& fn, double timeLimitSeconds, size_t slot,
                     TestResult& result, ParallelOnDevices* parallel = nullptr);

// Runs a test compiled through a plugin (`executable`, entered at the test function) on
// `device`, failing it after `timeLimitSeconds` (the execution's time limit); results as
// runTestFunction's. Never throws.
void runTestExecution(const runtime::Executable& executable, const runtime::Device& device, double timeLimitSeconds,
                      TestResult& result);

// The first line of an error, which is what a one-line report shows.
std::string firstLine(const std::string& s);

}  // namespace kiln::testing
