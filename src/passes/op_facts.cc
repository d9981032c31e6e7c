#include "passes/op_facts.h"

#include <unordered_set>

#include "ir/attr_records.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "kernels/lapack/lapack_call.h"

namespace kiln::passes {
namespace {

bool opItselfHasSideEffects(const Op& op) {
  if (op.info().has(kSideEffect)) return true;
  switch (op.info().category) {
    case OpCategory::Collective:
    case OpCategory::Communication:
    case OpCategory::Random:
    case OpCategory::Check:
    case OpCategory::Interpreter:
      return true;
    default:
      break;
  }
  // A custom call is opaque: even without has_side_effect its target may keep state
  // (XLA keeps them too), so no pass moves, merges or drops one. A call has its
  // callee's effects and a composite its decomposition's, and neither function is
  // visible from here: without this, DCE dropped an unused call of a function that
  // asserts, and CSE merged two such calls into one. Inlining runs first, so only calls
  // on recursive cycles meet this in the default pipeline.
  // JAX's LAPACK calls are the exception among custom calls: kiln runs them itself
  // (kernels/lapack/) and they are pure functions of their operands, so unless marked
  // has_side_effect they are merged and dropped like other ops (XLA treats custom calls
  // without has_side_effect so too).
  if (op.is(ops::CustomCall)) {
    const Attribute effect = op.attr("has_side_effect");
    const Attribute target = op.attr("call_target_name");
    const bool marked = effect && (!effect.is(Attribute::Kind::Bool) || effect.asBool());
    return marked || !target.is(Attribute::Kind::String) || !kernels::isLapackTarget(target.asString());
  }
  // custom_jvp and custom_vjp call their primal.
  return op.is(ops::FuncCall) || op.is(ops::Composite) || op.is(ops::CustomJvp) || op.is(ops::CustomVjp);
}

}  // namespace

bool hasSideEffects(const Op& op) {
  if (opItselfHasSideEffects(op)) return true;
  for (size_t i = 0; i < op.numRegions(); ++i) {
    bool found = false;
    walk(op.region(i), [&](Op& inner) { found = found || opItselfHasSideEffects(inner); });
    if (found) return true;
  }
  return false;
}

bool regionsSelfContained(const Op& op) {
  for (size_t i = 0; i < op.numRegions(); ++i) {
    const Region& region = op.region(i);
    bool contained = true;
    walk(region, [&](Op& inner) {
      for (const Value* v : inner.operands()) contained = contained && region.contains(v);
    });
    if (!contained) return false;
  }
  return true;
}

std::vector<Value*> valuesRead(const Op& op, const Region& region) {
  std::vector<Value*> read;
  auto add = [&](Value* v) {
    if (v->parentRegion() != &region) return;
    for (Value* r : read)
      if (r == v) return;
    read.push_back(v);
  };
  for (Value* v : op.operands()) add(v);
  for (size_t i = 0; i < op.numRegions(); ++i)
    walk(op.region(i), [&](Op& inner) {
      for (Value* v : inner.operands()) add(v);
    });
  return read;
}

bool readsOnlyAtWrittenIndex(const Op& op, size_t i) {
  if (op.info().has(kElementwise)) return true;
  if (!op.is(ops::Fusion)) return false;
  // A multi_output fusion is a loop fusion with several results. It counts only because
  // its executor must compute every result at an index before storing any (the cpu
  // kernel emitter's loop parts do): a result may then go over an operand another result
  // reads at that index. Results of other shapes never read the operand: every value
  // computed from it below keeps its shape (an elementwise op's operands and result
  // share one; clamp and select, which take scalars, are not elementwise here). A
  // dot_epilogue fusion counts when its dot does not read the operand (the dot's result
  // is computed apart, or at each index from other operands).
  const std::optional<FusionKind> kind = fusionKindOf(op.attr("kind").asString());
  if (kind != FusionKind::Loop && kind != FusionKind::MultiOutput && kind != FusionKind::DotEpilogue) return false;
  // Every value computed from the operand is computed elementwise (a broadcast of one
  // could read it at another index: a permuting broadcast_in_dim, say), from every
  // argument the operand is passed as. Ops that read no such value cannot read its bytes
  // (the dot, a transpose of another operand), unless from inside a region of theirs.
  const Region& body = op.region(0);
  std::unordered_set<const Value*> fromArgument;
  for (size_t k = 0; k < op.numOperands(); ++k)
    if (op.operand(k) == op.operand(i)) fromArgument.insert(body.argument(k));
  for (const auto& inner : body.ops()) {
    const Op& o = *inner;
    if (o.numRegions() > 0) return false;
    bool reads = false;
    for (const Value* v : o.operands()) reads = reads || fromArgument.count(v) > 0;
    if (!reads || o.info().isTerminator()) continue;
    if (!o.info().has(kElementwise)) return false;
    for (const Value* r : o.results()) fromArgument.insert(r);
  }
  return true;
}

}  // namespace kiln::passes
