// Running an ordered list of passes over a module: each is timed and its effect on the
// op count and whether it changed anything recorded; the verifier runs after each when
// asked; --dump-dir gets the module after every pass (NN-name.mlir) plus the fusion plan
// and the buffer assignment.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace kiln::passes {

struct PassStats {
  std::string name;
  double seconds = 0;
  int64_t opsBefore = 0;  // every op of the module, nested ones included
  int64_t opsAfter = 0;
  bool changed = false;   // what the pass reported (the op counts may not show it)
  // Fixpoint groups only: the rounds that ran, whether the last one changed nothing (or
  // the cap stopped the group), and every inner pass run, round by round.
  int rounds = 0;
  bool converged = false;
  std::vector<PassStats> inner;
};

struct PipelineResult {
  std::vector<PassStats> passes;
  double seconds = 0;
};

// Runs the passes named in `passNames` (see createPass) on `module`, in order.
// Throws kiln::Error; a verifier failure after a pass names that pass.
PipelineResult runPipeline(Module& module, const std::vector<std::string>& passNames, PassContext& context);
// The same for passes already made (tests run passes of their own through it).
PipelineResult runPipeline(Module& module, std::vector<std::unique_ptr<Pass>> passes, PassContext& context);

// Runs one pass: timed, op counts and `changed` recorded, verified afterwards when
// context.options.verifyEachPass is set (a failure names the pass). Fixpoint groups run
// their passes through it too.
PassStats runPass(Pass& pass, Module& module, PassContext& context);

// Every op of the module, nested ones included.
int64_t countOps(const Module& module);

// The short summary `kiln compile --report` prints: passes with times, op counts and
// whether each changed the module (fixpoint groups: their rounds and every inner run),
// fusion figures and decisions, buffer figures per function.
std::string pipelineReport(const PipelineResult& result, const PassContext& context);

}  // namespace kiln::passes
