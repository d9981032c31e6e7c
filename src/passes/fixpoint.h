// A fixpoint group: passes run in order, round after round, until a round in which none
// of them changed anything (XLA's HloPassFix) — simplify and fold feed each other, and a
// group says so once instead of listing a pass twice and hoping that is enough.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "passes/pass_manager.h"

namespace kiln::passes {

class FixpointPass : public Pass {
 public:
  // A cap, not a target: real programs settle in two or three rounds; rules that undo
  // each other would otherwise loop for ever.
  static constexpr int kDefaultMaxRounds = 8;

  // `passes` must not be empty and `maxRounds` must be at least 1 (a usage error).
  explicit FixpointPass(std::vector<std::unique_ptr<Pass>> passes, int maxRounds = kDefaultMaxRounds);

  // "fixpoint(simplify,fold)": the --passes syntax that makes the same group.
  std::string_view name() const override { return name_; }
  // Whether any round changed anything.
  bool run(Module& module, PassContext& context) override;

  int maxRounds() const { return maxRounds_; }
  // Of the last run: the rounds that ran (the last one changed nothing unless the cap
  // stopped the group), and every inner pass run in order, round by round.
  int rounds() const { return rounds_; }
  bool converged() const { return converged_; }
  const std::vector<PassStats>& runs() const { return runs_; }

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  int maxRounds_;
  std::string name_;
  int rounds_ = 0;
  bool converged_ = false;
  std::vector<PassStats> runs_;
};

}  // namespace kiln::passes
