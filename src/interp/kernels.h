// What the kernel files (interp/ops/*.cc) share: the kernel signature, the evaluation
// context a kernel may call back into (nested regions, functions, collectives), the
// kernel table, and index helpers.
#pragma once

#include <span>
#include <vector>

#include "interp/element.h"
#include "interp/interpreter.h"
#include "ir/op_table.h"

namespace kiln::interp {

class ProcessContext;  // collectives: this process's place in run_parallel (collectives.cc)

class EvalContext {
 public:
  virtual ~EvalContext() = default;
  // Evaluates region `region` with the given block arguments; returns what its
  // stablehlo.return yields.
  virtual HostValues runRegion(const Region& region, const HostValues& args) = 0;
  // Calls a function of the module by name (in this process).
  virtual HostValues callFunction(const std::string& name, const HostValues& args) = 0;
  // Calls a function as process `process` of a run_parallel (from that process's thread).
  virtual HostValues callFunctionIn(ProcessContext* process, const std::string& name,
                                    const HostValues& args) = 0;
  // Throws when the deadline passed or the run was cancelled (loops call this).
  virtual void checkTime() = 0;
  virtual const Interpreter& interpreter() const = 0;
  // This process in a run_parallel, or null outside one.
  virtual ProcessContext* process() = 0;
};

// A kernel evaluates one op: operands in, results out (one HostValue per result).
using Kernel = HostValues (*)(const Op& op, const HostValues& operands, EvalContext& ctx);
// Operand `i` of a kernel, when it is a tensor.
inline const Literal& in(const HostValues& operands, size_t i = 0) { return operands[i].tensor(); }

// Each op has a kernel or says why the interpreter does not run it.
struct KernelEntry {
  Kernel kernel = nullptr;
  const char* unsupported = nullptr;  // the reason, when there is no kernel
};
struct KernelTable {
  OpTable<KernelEntry> entries;
  void set(OpCode code, Kernel k) { entries[code].kernel = k; }
  void unsupported(OpCode code, const char* reason) { entries[code].unsupported = reason; }
};
// Each family file fills in its kernels.
void addArithmeticKernels(KernelTable& table);      // ops/arithmetic.cc
void addMathKernels(KernelTable& table);            // ops/math.cc
void addConversionKernels(KernelTable& table);      // ops/conversion.cc
void addCompareSelectKernels(KernelTable& table);   // ops/compare_select.cc
void addControlFlowKernels(KernelTable& table);     // ops/control_flow.cc
void addCheckKernels(KernelTable& table);           // ops/checks.cc
void addHarnessKernels(KernelTable& table);         // ops/harness.cc
void addMiscKernels(KernelTable& table);            // ops/misc.cc
void addMovementKernels(KernelTable& table);        // ops/movement.cc
void addGatherScatterKernels(KernelTable& table);   // ops/gather_scatter.cc
void addSortKernels(KernelTable& table);            // ops/sort.cc
void addReductionKernels(KernelTable& table);       // ops/reduction.cc
void addLinalgKernels(KernelTable& table);          // ops/linalg.cc
void addCollectiveKernels(KernelTable& table);      // ops/collectives.cc
void addCommunicationKernels(KernelTable& table);   // ops/communication.cc
void addRandomKernels(KernelTable& table);          // ops/random.cc
void addChloKernels(KernelTable& table);            // ops/chlo.cc
void addCustomCallKernels(KernelTable& table);      // ops/custom_call.cc

// Fails the run with an "unsupported: <op> (<reason>)" error.
[[noreturn]] void unsupportedOp(const Op& op, const std::string& reason);
// A Runtime error naming the op.
[[noreturn]] void runtimeError(const Op& op, const std::string& message);

// ---- element helpers ----
// Element `linear` of a tensor as a rank-0 tensor (to pass to a region).
Literal elementAt(const Literal& lit, int64_t linear);
// Stores a rank-0 tensor of the same dtype as element `linear`.
void setElement(Literal& lit, int64_t linear, const Literal& scalar);

// ---- index helpers ----
// Row-major strides of a shape (in elements).
std::vector<int64_t> stridesOf(const Shape& shape);
// The multi-index of linear index `linear` in `shape`.
void unravel(int64_t linear, const Shape& shape, std::vector<int64_t>& index);
// The linear index of a multi-index.
int64_t ravel(std::span<const int64_t> index, const std::vector<int64_t>& strides);
// Advances a multi-index over `shape` in row-major order; false after the last one.
bool nextIndex(std::vector<int64_t>& index, const Shape& shape);

}  // namespace kiln::interp
