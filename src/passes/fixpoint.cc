// The fixpoint group's loop: run every pass each round, stop after a quiet round or at the cap.
#include "passes/fixpoint.h"

#include "support/error.h"

namespace kiln::passes {

FixpointPass::FixpointPass(std::vector<std::unique_ptr<Pass>> passes, int maxRounds)
    : passes_(std::move(passes)), maxRounds_(maxRounds) {
  if (passes_.empty()) throw Error(ErrorKind::Usage, "a fixpoint group needs at least one pass: 'fixpoint()'");
  if (maxRounds_ < 1)
    throw Error(ErrorKind::Usage, "a fixpoint group needs at least one round, not " + std::to_string(maxRounds_));
  name_ = "fixpoint(";
  for (size_t i = 0; i < passes_.size(); ++i) name_ += (i ? "," : "") + std::string(passes_[i]->name());
  name_ += ")";
}

bool FixpointPass::run(Module& module, PassContext& context) {
  rounds_ = 0;
  converged_ = false;
  runs_.clear();
  bool changedAtAll = false;
  while (rounds_ < maxRounds_) {
    ++rounds_;
    bool changed = false;
    for (const auto& pass : passes_) {
      runs_.push_back(runPass(*pass, module, context));
      changed = runs_.back().changed || changed;
    }
    if (!changed) {
      converged_ = true;
      break;
    }
    changedAtAll = true;
  }
  return changedAtAll;
}

}  // namespace kiln::passes
