#include "passes/fusion_plan.h"

#include <fmt/format.h>

namespace kiln::passes {

std::string FusionPlan::str() const {
  std::string s = fmt::format("fusion plan: {} kernels before, {} after\n", kernelsBefore, kernelsAfter);
  for (const FusedKernel& k : kernels) {
    s += fmt::format("@{} {} [{}]:", k.function, k.name, k.kind);
    for (const std::string& m : k.members) s += "\n    " + m;
    s += "\n";
  }
  s += "decisions:\n";
  for (const FusionDecision& d : decisions)
    s += fmt::format("  @{} {} {}: {}\n", d.function, d.fused ? "fused  " : "refused", d.what, d.why);
  return s;
}

}  // namespace kiln::passes
