// A function whose every op runs natively, as an ordered list of steps (a kernel, a GEMM
// on BLAS, or a GEMM then its epilogue kernel) over one arena that the buffer
// assignment lays out: each value of the body has its bytes at a fixed offset, and values
// whose lifetimes do not overlap share them (in place, where an op reads a dying operand
// only at the index it writes). Nothing is allocated while it runs except the function's
// results, which come from a pool of buffers kept across executions; arenas are kept
// too, one per concurrent execution. Parameters are read where the caller holds them;
// constants live in the program.
//
// A function with an op that has no native step (control flow, an op the emitter
// declined, checks, tuples) has no step program: the executable runs it through the
// interpreter, which hands it the native ops one by one.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backends/cpu/native_kernels.h"
#include "backends/cpu/result_pool.h"
#include "interp/host_value.h"

namespace kiln::cpu {

// What the executable compiled: the kernels, the ops run on BLAS, and the dot each
// dot_epilogue fusion runs on BLAS before its kernel.
struct CompiledOps {
  const NativeKernels& kernels;
  const std::unordered_set<const Op*>& blas;
  const std::unordered_map<const Op*, const Op*>& epilogueDots;
};

class StepProgram {
 public:
  // The program of `fn`, or null with `whyNot` set ("stablehlo.while at line 4 has no
  // native step").
  static std::unique_ptr<StepProgram> build(const Function& fn, const CompiledOps& natives, std::string& whyNot);

  // Runs the function on `args` (of its parameter types); `runs` counts native steps.
  interp::HostValues run(const interp::HostValues& args, std::atomic<uint64_t>& runs) const;

  size_t numSteps() const { return steps_.size(); }
  int64_t arenaBytes() const { return arenaBytes_; }

 private:
  // Where a value's bytes are while the program runs.
  struct Place {
    enum class In { Parameter, Constant, Arena, Result } in = In::Arena;
    size_t index = 0;     // parameter, constant or function result number
    int64_t offset = 0;   // in the arena
  };
  struct Step {
    const Op* op = nullptr;
    const Kernel* kernel = nullptr;  // null: a GEMM alone
    const Op* dot = nullptr;         // the GEMM (the op itself, or a dot_epilogue's dot)
    std::vector<Place> operands;
    std::vector<Place> results;
  };
  struct Arena {
    std::unique_ptr<uint8_t[], void (*)(uint8_t*)> bytes{nullptr, nullptr};
  };

  explicit StepProgram(const Function& fn) : fn_(fn) {}
  Arena takeArena() const;
  void giveBack(Arena arena) const;

  const Function& fn_;
  std::vector<Step> steps_;
  std::vector<Literal> constants_;     // dense
  std::vector<Place> returned_;        // what the function returns, in order
  std::vector<const Op*> resultOps_;   // the op (and result number) behind each Result place
  std::vector<size_t> resultIndex_;
  int64_t arenaBytes_ = 0;
  int64_t scratchOffset_ = 0;          // where epilogue GEMMs write, past the assignment's arena
  ResultPool results_;
  mutable std::mutex arenasMutex_;
  mutable std::vector<Arena> arenas_;
};

}  // namespace kiln::cpu
