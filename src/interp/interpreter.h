// The reference interpreter: evaluates IR op by op with the exact semantics of the
// StableHLO spec. It is the oracle every compiled path is checked against.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "interp/host_value.h"
#include "ir/module.h"
#include "support/error.h"

namespace kiln::interp {

class ProcessContext;  // one process of a grid of them (process_grid.h)

// A check op that did not hold: what it compared and where they first differ.
struct CheckFailure {
  std::string op;       // check.expect_eq, ...
  SourcePos pos;        // of the check op
  std::string message;  // "element 3 (index [1, 0]): got 2.5, expected 2.0"
};

// Thrown out of a run when a check fails (the test stops at its first failing check).
class CheckFailed : public Error {
 public:
  explicit CheckFailed(CheckFailure f)
      : Error(ErrorKind::Runtime, f.op + ": " + f.message), failure(std::move(f)) {}
  CheckFailure failure;
};

// Ops a backend has compiled to native code: the interpreter runs them through this
// instead of its own kernels. This is how a backend runs whole programs while it still
// leaves some ops (control flow, ops it has no code for) to the interpreter.
class NativeOps {
 public:
  virtual ~NativeOps() = default;
  // Runs `op` natively, filling `results`, and returns true; false leaves it to the
  // interpreter's kernel.
  virtual bool run(const Op& op, const HostValues& operands, HostValues& results) const = 0;
};

struct InterpOptions;

// A device's infeed and outfeed queues (the runtime's, which the host fills and drains
// through the plugin API): where a run's infeed ops take their values and its outfeed
// ops put theirs. Without them, infeed reads interpreter.run_parallel's queue of
// functions and outfeed drops its values.
class DeviceFeeds {
 public:
  virtual ~DeviceFeeds() = default;
  // The next value queued for infeed, waiting for one while `options` let the run go on
  // (cancellation, deadline). Throws kiln::Error (Runtime) when the run stops first.
  virtual HostValue takeInfeed(const InterpOptions& options) = 0;
  // Appends a value to the outfeed (never waits).
  virtual void putOutfeed(HostValue value) = 0;
};

struct InterpOptions {
  // The run stops with a Runtime error ("time limit") once this passes.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Set from another thread to stop a run early.
  const std::atomic<bool>* cancel = nullptr;
  // Where interpreter.probe writes and check.expect_serialized_eq reads (a folder).
  std::string probeDir;
  // Output of interpreter.print (default: standard output).
  std::function<void(const std::string&)> print;
  // Native code for some ops (see NativeOps); null: interpret everything.
  const NativeOps* native = nullptr;
  // The run is this process of a grid (one device of a multi-device execution): its
  // collectives exchange values with the grid's other processes. Null: a single process,
  // where collectives fail unless inside interpreter.run_parallel.
  ProcessContext* process = nullptr;
  // Runs an interpreter.run_parallel op's programs elsewhere (the test runner: as one
  // executable on plugin devices) and returns its results, or nullopt to leave the op to
  // the grid of threads the interpreter starts itself (also when this is null).
  std::function<std::optional<HostValues>(const Op& op, const HostValues& inputs)> runParallel;
  // The device's infeed and outfeed (a run on a plugin device); null: see DeviceFeeds.
  DeviceFeeds* feeds = nullptr;
};

class Interpreter {
 public:
  Interpreter(const Module& module, InterpOptions options = {});
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs `fn` on `args` (checked against its parameter types) and returns its results.
  // Throws kiln::Error: Runtime for failures while running (CheckFailed for checks),
  // Unsupported for ops the interpreter cannot evaluate, Type for wrong arguments.
  HostValues call(const Function& fn, const HostValues& args);
  HostValues call(std::string_view fnName, const HostValues& args);
  // Runs the one op `op` (of this module) on `operands`, as this run's process: what a
  // backend's compiled program hands back to the interpreter (collectives).
  HostValues runOp(const Op& op, const HostValues& operands);

  const Module& module() const { return module_; }
  const InterpOptions& options() const { return options_; }
  // Numbers interpreter.probe files: 1, 2, ... per interpreter.
  int nextProbeId() const { return ++probes_; }

  // For each op of `region` (by position), the values of the region that are not needed
  // after it: the evaluation loop frees them, so peak memory follows what is live.
  const std::vector<std::vector<const Value*>>& deadAfter(const Region& region) const;

  // Ops without a kernel run their registry decomposition: a region built once, taking
  // the op's operands as arguments and yielding its results; null when there is none.
  const Region* decompositionOf(const Op& op) const;

 private:
  void planDecompositions(const Region& region);

  const Module& module_;
  InterpOptions options_;
  mutable std::atomic<int> probes_{0};
  std::unordered_map<const Region*, std::vector<std::vector<const Value*>>> deadAfter_;
  std::unordered_map<const Op*, std::unique_ptr<Region>> decompositions_;
};

// Throws a Runtime error ("cancelled", "time limit exceeded") when `options` say the
// run must stop; every executor's loops call it.
void checkDeadline(const InterpOptions& options);

// Throws a Type error unless `args` fit the parameters of `fn` (count and types); every
// executor checks its arguments with it.
void checkArguments(const Function& fn, const HostValues& args);

// Whether the interpreter has a kernel for `code`; when not, the reason it gives
// ("unsupported: ..."), or null when the op has neither (a completeness test fails then).
bool hasKernel(OpCode code);
const char* unsupportedReason(OpCode code);

}  // namespace kiln::interp
