// The check harness on the interpreter: a probe folder, a deadline and silent prints per
// test, and every way a test can end turned into a result.
#include "testing/check_harness.h"

#include <chrono>
#include <filesystem>

#include <unistd.h>

#include "interp/interpreter.h"
#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"
#include "support/error.h"
#include "testing/parallel_on_devices.h"

namespace kiln::testing {

namespace fs = std::filesystem;

bool isCheckOp(const Op& op) {
  if (op.info().category == OpCategory::Check) return true;
  return op.is(ops::CustomCall) && checkOpOfCustomCall(op.attr("call_target_name").asString());
}

std::vector<const Function*> testFunctions(const Module& module) {
  std::vector<const Function*> tests;
  for (const auto& fn : module.functions()) {
    if (fn->numParams() != 0) continue;
    bool hasCheck = false;
    walk(fn->body(), [&](Op& op) { hasCheck = hasCheck || isCheckOp(op); });
    if (hasCheck) tests.push_back(fn.get());
  }
  return tests;
}

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

namespace {

// Runs `test`, which throws what fails, and fills `r` with how it ended.
template <class Test>
void recordOutcome(TestResult& r, Test&& test) {
  auto start = std::chrono::steady_clock::now();
  try {
    test();
    r.status = TestResult::Status::Passed;
  } catch (const Error& e) {
    r.status = TestResult::Status::Failed;
    r.message = firstLine(e.format());
  } catch (const std::exception& e) {
    r.status = TestResult::Status::Failed;
    r.message = std::string("internal error: ") + e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void runTestExecution(const runtime::Executable& executable, const runtime::Device& device, double timeLimitSeconds,
                      TestResult& r) {
  recordOutcome(r, [&] {
    runtime::ExecuteOptions options;
    options.timeLimit = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(timeLimitSeconds));
    if (executable.plugin().minorVersion() >= 7)  // (older plugins print to standard output)
      options.print = [](std::string_view) {};    // interpreter.print output is not part of a test
    executable.execute({}, device, options).done.await();
  });
}

void runTestFunction(const Module& module, const Function& fn, double timeLimitSeconds, size_t slot,
                     TestResult& r, ParallelOnDevices* parallel) {
  auto start = std::chrono::steady_clock::now();
  // Each test gets its own probe folder, so probes of parallel tests do not mix.
  fs::path probes =
      fs::temp_directory_path() / ("kiln-probe-" + std::to_string(::getpid()) + "-" + std::to_string(slot));
  interp::InterpOptions io;
  io.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeLimitSeconds));
  io.probeDir = probes.string();
  io.print = [](const std::string&) {};  // interpreter.print output is not part of a test
  if (parallel)
    io.runParallel = [&](const Op& op, const interp::HostValues& inputs) {
      return parallel->runIfPossible(module, op, inputs);
    };
  recordOutcome(r, [&] {
    fs::create_directories(probes);
    interp::Interpreter interp(module, io);
    interp.call(fn, {});
  });
  std::error_code ignored;
  fs::remove_all(probes, ignored);
}

}  // namespace kiln::testing
