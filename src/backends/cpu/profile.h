// A profile of cpu executions: one slice per executed step (a kernel, a GEMM, a row group,
// a loop or branch, with the steps inside it nested) on the thread that ran it, and one
// per chunk of a kernel on each pool thread that ran the chunk. Written as a Chrome
// trace-event file (`kiln bench --profile trace.json`; opens in Perfetto or
// chrome://tracing), each slice with its op, the source lines it came from, the bytes
// it moves and the flops it does, and the GB/s and GFLOP/s those give; and summed by
// step into the report of the steps that took longest (`kiln bench --report`).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ir/module.h"
#include "passes/cost_analysis.h"

namespace kiln::cpu {

class Profile {
 public:
  explicit Profile(const Module& module) : module_(module), epoch_(std::chrono::steady_clock::now()) {}

  // Microseconds since the profile began.
  double now() const {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - epoch_).count();
  }
  // A step of `op` that ran from `start` to `end` (now()) on the calling thread; a chunk
  // is part of a kernel's step. `bytes`: what the step moves when that is not its op's
  // operands and results (a row group's); negative: those.
  void step(const Op& op, const char* kind, double start, double end, double bytes = -1);
  void chunk(const Op& op, double start, double end);
  // Marks where a timed run began and ended (the share of each step is of their sum).
  void run(double start, double end);

  std::string chromeTrace() const;

  // What bounds a run from below, per timed run: the flops of the dots and convolutions
  // its steps ran, and the bytes its other steps moved (a dot_epilogue's epilogue
  // included; a row group's values in its block scratch not). `bench/models.sh` puts
  // the first at the measured GEMM rate and the second at the measured triad.
  struct Work {
    double contractionFlops = 0, otherBytes = 0;
  };
  Work workPerRun() const;
  // The `n` steps that took longest in all, each with its share of the runs' time.
  std::string slowestSteps(size_t n) const;
  // slowestSteps(n), then a line with workPerRun() (`kiln bench --report`).
  std::string summary(size_t n) const;

 private:
  struct Slice {
    const Op* op;
    const char* kind;  // "kernel", "GEMM", ...; null for a chunk
    int thread;
    double start, end;
    double bytes;  // negative: the op's operands and results
  };
  // The bytes and flops of a step's slice.
  passes::Cost costOf(const Slice& s, std::map<const Op*, passes::Cost>& memo) const;
  void add(Slice s);

  const Module& module_;
  std::chrono::steady_clock::time_point epoch_;
  mutable std::mutex mutex_;
  std::vector<Slice> slices_;
  double runTime_ = 0;
  int runs_ = 0;
};

}  // namespace kiln::cpu
