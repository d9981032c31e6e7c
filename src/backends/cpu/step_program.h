// A function whose every op runs natively, as an ordered list of steps (a kernel, a GEMM
// on BLAS, a GEMM then its epilogue kernel, a row group of kernels run block by block
// (row_groups.h), a LAPACK custom call (kernels/lapack/), or while / if / case with
// nested step lists)
// over one arena that the buffer assignment lays out: each value of the body has its
// bytes at a fixed offset, and values whose lifetimes do not overlap share them (in
// place, where an op reads a dying operand only at the index it writes). The values
// inside control-flow regions, which the assignment leaves to their op, get slots of
// their own after it. Nothing is allocated while it runs except the function's
// results, which come from a pool of buffers kept across executions; arenas are kept
// too, one per concurrent execution. Parameters are read where the caller holds them;
// constants live in the program. A result goes into a donated argument of its type
// instead, when nothing else holds the argument's storage and the steps read it no more
// once the result is written (findDonors): the caller gets its memory back as the
// result, as with XLA's input/output aliasing.
//
// Collectives (and replica_id / partition_id) are host steps: the interpreter's kernel
// runs the op on copies of its operands, as this execution's process of the device grid.
// A function with an op that has no native step (an op the emitter declined, calls,
// checks, tuples or tokens) has no step program: the executable runs it through the
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
#include "interp/interpreter.h"
#include "kernels/lapack/lapack_call.h"

namespace kiln::cpu {

class Profile;  // profile.h

// What the executable compiled: the kernels, the ops run on BLAS, the dot each
// dot_epilogue fusion runs on BLAS before its kernel, and the LAPACK custom calls.
struct CompiledOps {
  const NativeKernels& kernels;
  const std::unordered_set<const Op*>& blas;
  const std::unordered_map<const Op*, const Op*>& epilogueDots;
  const std::unordered_map<const Op*, kernels::LapackCall>& lapack;
};

// Why a function has no step program: the op that has no native step (null when the
// function itself is the reason, a parameter that is not a tensor) and what keeps it.
struct NoStepProgram {
  const Op* op = nullptr;
  std::string why;
};

// A step program's arena offsets and sizes are multiples of this (a cache line, and
// what vector loads want).
inline constexpr int64_t kArenaAlignment = 64;
inline int64_t arenaAligned(int64_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

class StepProgram {
 public:
  // The program of `fn`, or null with `whyNot` set ("stablehlo.while at line 4 has no
  // native step").
  static std::unique_ptr<StepProgram> build(const Module& module, const Function& fn, const CompiledOps& natives,
                                            NoStepProgram& whyNot);

  // Runs the function on `args` (of its parameter types); `runs` counts native steps.
  // Loops stop with a Runtime error once `options.deadline` passes or `options.cancel`
  // is set, as the interpreter's do.
  // With a profile, every step (and every kernel chunk) is a slice in it. `donated`
  // (by argument index; null: none) marks the arguments the caller gives up: their
  // storage may become a result's.
  interp::HostValues run(const interp::HostValues& args, std::atomic<uint64_t>& runs,
                         const interp::InterpOptions& options = {}, Profile* profile = nullptr,
                         const std::vector<bool>* donated = nullptr) const;
  // Results written into donated arguments so far.
  uint64_t resultsInDonatedBuffers() const { return inDonated_.load(std::memory_order_relaxed); }

  size_t numSteps() const { return body_.steps.size(); }
  // The row groups, as "3 kernels over 4096 rows in blocks of 5" each (nested ones too).
  std::vector<std::string> rowGroups() const;
  int64_t arenaBytes() const { return arenaBytes_; }

 private:
  // Where a value's bytes are while the program runs.
  struct Place {
    // Scratch: a value that lives only inside a row group, in its block's scratch.
    enum class In { Parameter, Constant, Arena, Result, Scratch } in = In::Arena;
    size_t index = 0;     // parameter, constant or function result number
    int64_t offset = 0;   // in the arena, or in the block's scratch
    int64_t rowBytes = 0;  // Scratch: the bytes of one row
  };
  struct Block;
  struct Step {
    enum class Kind { Kernel, Gemm, Lapack, Host, Rows, While, If, Case } kind = Kind::Kernel;
    const Op* op = nullptr;
    const Kernel* kernel = nullptr;
    const kernels::LapackCall* lapack = nullptr;  // Lapack: the checked call
    const Op* dot = nullptr;  // Gemm: the op itself; Kernel: a dot_epilogue's dot, run first
    std::vector<Place> operands;
    std::vector<Place> results;
    Place product;                // where a dot_epilogue's dot writes
    Place scratch;                // a two-phase kernel's scratch (native_kernels.h)
    std::vector<Block> regions;   // While: cond, body; If: then, else; Case: the branches
    std::vector<Place> staging;   // While: where the body's results wait before they become the carries
    // Rows: the group's kernel steps, its rows, the rows of one block and the bytes of
    // one block's scratch.
    std::vector<Step> members;
    int64_t rows = 0, blockRows = 0, scratchBytes = 0;
    double movedBytes = 0;  // Rows: the bytes of its values outside the scratch (for profiles)
  };
  // A region: its steps, where its arguments live and what its terminator yields.
  struct Block {
    std::vector<Step> steps;
    std::vector<Place> args;
    std::vector<Place> yields;
  };
  struct Arena {
    std::unique_ptr<uint8_t[], void (*)(uint8_t*)> bytes{nullptr, nullptr};
    // One block scratch per thread that runs a row group (grown on first use).
    std::vector<std::unique_ptr<uint8_t[], void (*)(uint8_t*)>> scratch;
    int64_t scratchBytes = 0;
  };
  class Builder;  // step_program_builder.cc
  class Runner;   // step_program.cc

  StepProgram(const Module& module, const Function& fn) : module_(module), fn_(fn) {}
  // Which parameters each Result place may be written into (donors_), once the steps
  // are there.
  void findDonors();
  // For each Result place, the donated parameter of this call whose storage it takes
  // (-1: none), given `params` (the call's, as run() holds them).
  std::vector<int64_t> resultsInParameters(const interp::HostValues& args, const std::vector<Literal>& params,
                                           const std::vector<bool>& donated) const;
  Arena takeArena() const;
  void giveBack(Arena arena) const;

  const Module& module_;
  const Function& fn_;
  Block body_;
  std::vector<Literal> constants_;     // dense
  // Whether Result place `r` is made by a step the interpreter runs (a collective's: the
  // builder makes every collective such a step, and a function result is made at the top
  // level, so always).
  bool madeByInterpreter(size_t r) const { return resultOps_[r]->info().category == OpCategory::Collective; }
  std::vector<const Op*> resultOps_;   // the op (and result number) behind each Result place
  std::vector<size_t> resultIndex_;
  // Per Result place, the parameters (of its type) it may be written into, in order
  // (findDonors says when).
  std::vector<std::vector<size_t>> donors_;
  mutable std::atomic<uint64_t> inDonated_{0};
  int64_t arenaBytes_ = 0;
  ResultPool results_;
  mutable std::mutex arenasMutex_;
  mutable std::vector<Arena> arenas_;
};

}  // namespace kiln::cpu
