// What every optimization pass is: a named IR → IR step (or an analysis) over a
// module, plus the context one pipeline run shares between its passes — the options,
// and the products later stages consume (fusion decisions, buffer assignments).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "passes/buffer_assignment.h"
#include "passes/fusion_plan.h"

namespace kiln::passes {

struct PipelineOptions {
  // Constant folding evaluates an op only when its results hold at most this many
  // elements in all (XLA folds small things too: big constants bloat the program).
  int64_t foldElementLimit = 4096;
  // Run the verifier after every pass (tests and --verify-each).
  bool verifyEachPass = false;
  // Treat every parameter of every function as donated (the API flag; the argument
  // attributes jax.buffer_donor and tf.aliasing_output donate one parameter each).
  bool donateAllParameters = false;
  // CHLO ops lower-chlo keeps ("chlo.erf", ...): a backend keeps what it has a native
  // kernel for.
  std::set<std::string> keepChlo;
  // Where `kiln compile --dump-dir` writes the module after each pass; empty: nowhere.
  std::string dumpDir;
};

// Shared by the passes of one pipeline run.
struct PassContext {
  PipelineOptions options;
  // Written by the fusion pass: one line per decision, for --report and the dump.
  FusionPlan fusionPlan;
  // Written by buffer assignment: one per function of the module.
  std::vector<BufferAssignment> buffers;
};

class Pass {
 public:
  virtual ~Pass() = default;
  // The name used in --passes and dump file names: "inline", "cse", ...
  virtual std::string_view name() const = 0;
  // Runs the pass and says whether it changed the module — an op, an operand, an
  // attribute, the order of ops, a function (XLA's HloModulePass::Run returns the same).
  // Analyses (buffer assignment) return false. Fixpoint groups stop on it, so a pass
  // must never report false after a change, and should not report true without one.
  virtual bool run(Module& module, PassContext& context) = 0;
};

}  // namespace kiln::passes
