// What the fusion pass decided and why: one line per decision (what merged into which
// kernel, or what was refused and the reason). `kiln compile --report` prints it and
// `--dump-dir` writes it, so users can see why two ops did or did not become one kernel.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"
#include "ir/location.h"

namespace kiln::passes {

// An op as the plan names it: "stablehlo.exponential (softmax.mlir:9)".
std::string describe(const Op& op);

struct FusionDecision {
  bool fused = false;     // false: a refusal
  std::string function;   // the function it happened in
  std::string what;       // "stablehlo.exponential (softmax.mlir:9) into fusion.3"
  std::string why;        // the rule or the cost that decided
};

// One kernel the fusion pass formed: its name, rule, member ops and where they came from.
struct FusedKernel {
  std::string function;
  std::string name;   // fusion.N, numbered per function in program order
  std::string kind;
  std::vector<std::string> members;  // op names, in program order
  Location loc;       // the merged location of the members
};

struct FusionPlan {
  std::vector<FusionDecision> decisions;
  std::vector<FusedKernel> kernels;
  // Kernels before and after fusion, summed over the functions: every top-level op
  // that computes something is one kernel (constants, returns and tuple plumbing are not).
  int64_t kernelsBefore = 0;
  int64_t kernelsAfter = 0;

  // The plan as text: the kernels, then every decision, one per line.
  std::string str() const;
};

}  // namespace kiln::passes
