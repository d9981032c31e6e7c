#include "passes/fusion_plan.h"

#include <fmt/format.h>

namespace kiln::passes {

std::string describe(const Op& op) {
  Location file = op.loc.fileLocation();
  std::string where = !file.isUnknown() ? file.str() : op.pos.known() ? fmt::format("line {}", op.pos.line) : "";
  return where.empty() ? std::string(op.name()) : fmt::format("{} ({})", op.name(), where);
}

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
