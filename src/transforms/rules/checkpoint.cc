// Rules of kiln.checkpoint, what jax.checkpoint (jax.remat) lowers to: a region whose
// residuals reverse mode recomputes in the backward pass, except what its policy keeps.
//
// Forward mode rebuilds the checkpoint around the region's jvp (primals and nonzero
// tangents in, primals and tangents out), so the boundary survives into the jvp program
// that vjp transposes. There the split rule copies the region's primal part into the
// forward phase through a transposer of its own (Transposer::inlinedRegion), and the
// transpose rule runs that transposer's backward phase, which reads the region's primal
// values through Transposer::residual under the checkpoint's policy: the mechanism of
// VjpOptions::remat, applied to the region alone (nothing_saveable = Remat::All,
// dots_saveable = Remat::Dots, everything_saveable = Remat::None).
//
// Batching rebuilds the checkpoint around the batched region.
#include "ir/ops/compiler.h"
#include "support/error.h"
#include "transforms/batch_emitter.h"
#include "transforms/jvp_emitter.h"
#include "transforms/op_rules.h"
#include "transforms/transposer.h"

namespace kiln::transforms {
namespace {

std::string policyName(const Op& op) { return op.attrOrDefault("policy").asString(); }

Remat policyOf(const Op& op) {
  const std::string policy = policyName(op);
  if (policy == "nothing_saveable") return Remat::All;
  if (policy == "dots_saveable") return Remat::Dots;
  if (policy == "everything_saveable") return Remat::None;
  unsupportedRule(op, "vjp", "unknown policy '" + policy + "'");
}

std::vector<Value*> checkpointJvp(JvpArgs& a) {
  std::vector<size_t> withTangent, differentiable;
  std::vector<Value*> operands = a.x;
  for (size_t i = 0; i < a.t.size(); ++i)
    if (a.t[i]) {
      withTangent.push_back(i);
      operands.push_back(a.t[i]);
    }
  for (size_t i = 0; i < a.op.numResults(); ++i)
    if (isDifferentiable(a.op.result(i)->type())) differentiable.push_back(i);
  std::vector<Value*> results = a.b.checkpoint(
      operands, policyName(a.op),
      [&](Builder& c, const std::vector<Value*>& args) {
        return emitBody(a.emitter, c, a.op.region(0), args, withTangent, differentiable);
      });
  return splitResults(a, results, differentiable);
}

std::vector<bool> checkpointSplit(SplitArgs& a) {
  const Region& region = a.op.region(0);
  Transposer& inner = a.transposer.inlinedRegion(&a.op, policyOf(a.op));
  std::vector<Value*> args;
  for (size_t i = 0; i < a.op.numOperands(); ++i)
    args.push_back(a.linear[i] ? nullptr : a.transposer.primalOf(a.op.operand(i)));
  inner.forward(region, args, a.linear);
  std::vector<bool> linear;
  const Op* ret = region.terminator();
  for (size_t i = 0; i < a.op.numResults(); ++i) {
    linear.push_back(inner.isLinear(ret->operand(i)));
    if (!linear.back()) a.transposer.mapPrimal(a.op.result(i), inner.primalOf(ret->operand(i)));
  }
  return linear;
}

std::vector<Value*> checkpointTranspose(TransposeArgs& a) {
  const Region& region = a.op.region(0);
  Transposer& inner = a.transposer.inlinedRegion(&a.op);
  const Op* ret = region.terminator();
  for (size_t i = 0; i < a.op.numResults(); ++i)
    if (a.ct[i] && inner.isLinear(ret->operand(i))) inner.addCotangent(ret->operand(i), a.ct[i]);
  inner.backward();
  std::vector<Value*> cts;
  for (size_t i = 0; i < a.op.numOperands(); ++i) cts.push_back(a.linear[i] ? inner.cotangentOf(region.argument(i)) : nullptr);
  return cts;
}

std::vector<Value*> checkpointBatch(BatchArgs& a) {
  const std::vector<bool> all(a.op.numResults(), true);
  return a.b.checkpoint(a.x, policyName(a.op),
                        [&](Builder& c, const std::vector<Value*>& args) {
                          return batchBody(a.emitter, c, a.op.region(0), args, a.batched, all);
                        });
}

}  // namespace

void addCheckpointRules(OpTable<OpRules>& t) {
  t[ops::Checkpoint] = {&checkpointJvp, &checkpointTranspose, &checkpointSplit, &checkpointBatch};
}

}  // namespace kiln::transforms
