// The reverse-mode engine: transposes the linear part of a region of a jvp program.
//
// forward() copies the region's primal ops (those that do not depend on its linear
// values) into the builder's region and collects the linear ops; seed() gives
// cotangents to linear values; backward() walks the linear ops in reverse, turning each
// op's result cotangents into its linear operands' cotangents by the op's transpose
// rule. vjp() runs it over the jvp function; the loop rules run nested ones over loop
// bodies, each of which sees what the enclosing one mapped (values a body captures).
#pragma once

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/builder.h"
#include "ir/module.h"
#include "transforms/autodiff.h"

namespace kiln::transforms {

class Transposer {
 public:
  Transposer(Builder& b, const Module* module, Transposer* parent = nullptr, const VjpOptions& options = {})
      : b_(b), module_(module), parent_(parent), options_(parent ? parent->options_ : options) {}

  Builder& builder() { return b_; }
  const Module* module() const { return module_; }
  // VjpOptions::loopBound (0: none).
  int64_t loopBound() const { return options_.loopBound; }

  // Copies the primal ops of `region` (its arguments: `args[i]`, or linear where
  // `linearArg[i]`) and collects its linear ops.
  void forward(const Region& region, const std::vector<Value*>& args, const std::vector<bool>& linearArg);
  // Adds `ct` to the cotangent of the linear value `v` (null adds nothing). A value of
  // an enclosing region collects here too: the loop rule carries it out.
  void addCotangent(const Value* v, Value* ct);
  void backward();

  Value* cotangentOf(const Value* v) const;
  Value* primalOf(Value* v) const;
  // A primal value as the backward phase reads it: primalOf, or under a remat policy
  // recomputed there from what the policy keeps.
  Value* residual(Value* v);
  bool isLinear(const Value* v) const;
  void mapPrimal(const Value* original, Value* primal) { primal_[original] = primal; }
  void markLinear(const Value* v) { linear_.insert(v); }

  // What a split rule keeps for its transpose rule (a loop's stored carries).
  void setResiduals(const Op* op, std::vector<Value*> values) { residuals_[op] = std::move(values); }
  const std::vector<Value*>& residuals(const Op* op) const;

  // A transposer for the region of `op` (a checkpoint) whose phases are this one's: its
  // forward() copies the region's primal ops here, its backward() runs within this one's,
  // and it keeps for that what `remat` keeps (recomputing the rest from barriers, as the
  // whole program does under VjpOptions::remat). Made by the split rule, found by the
  // transpose rule.
  Transposer& inlinedRegion(const Op* op, Remat remat);
  Transposer& inlinedRegion(const Op* op) const;

 private:
  void forwardOp(const Op& op);
  bool kept(const Value* v) const;

  Builder& b_;
  const Module* module_;
  Transposer* parent_;
  VjpOptions options_;
  ValueMap primal_;
  ValueMap recomputed_;  // the backward phase's copies (remat)
  std::unordered_set<const Op*> copied_;  // the ops forward() copied (remat may redo them)
  std::unordered_set<const Value*> linear_;
  std::unordered_map<const Value*, Value*> ct_;
  std::unordered_map<const Op*, std::vector<Value*>> residuals_;
  std::unordered_map<const Op*, std::unique_ptr<Transposer>> inlined_;
  std::vector<const Op*> linearOps_;
};

}  // namespace kiln::transforms
