// Forward-mode rules of while, if and case: the op is rebuilt with its bodies
// differentiated (by a nested jvp emitter, which also sees the values a body captures
// from outside), carrying or yielding tangents beside the primals. A loop carries a
// tangent for every floating-point carry once any tangent enters it, since the body may
// turn a zero tangent into a nonzero one. Reverse mode through these ops is not
// written yet: vjp reports it (they have no transpose rule).
#include "transforms/ad_rules.h"
#include "transforms/jvp_emitter.h"

namespace kiln::transforms {
namespace {

using O = OpCode;

// Emits `region` (arguments `args`: its primals, then the tangents of the arguments at
// `argTangents`) with tangents through `c`; yields its primals, then the tangents of the
// yielded values at `outTangents` (zeros where they are zero).
std::vector<Value*> emitBody(JvpEmitter& parent, Builder& c, const Region& region, const std::vector<Value*>& args,
                             const std::vector<size_t>& argTangents, const std::vector<size_t>& outTangents) {
  JvpEmitter e(c, parent);
  const size_t n = region.numArguments();
  for (size_t i = 0; i < n; ++i) e.mapPrimal(region.argument(i), args[i]);
  for (size_t k = 0; k < argTangents.size(); ++k) e.setTangent(region.argument(argTangents[k]), args[n + k]);
  e.emitRegion(region);
  const Op* ret = region.terminator();
  std::vector<Value*> out = e.primals(ret->operands());
  for (size_t i : outTangents) out.push_back(orZeros(c, e.tangentOf(ret->operand(i)), e.primalOf(ret->operand(i))));
  return out;
}

std::vector<size_t> differentiable(const std::vector<Value*>& values) {
  std::vector<size_t> out;
  for (size_t i = 0; i < values.size(); ++i)
    if (isDifferentiable(values[i]->type())) out.push_back(i);
  return out;
}

// The result tangents (null where not differentiable) from the extra results of the
// rebuilt op, whose first `n` results replace the primals.
std::vector<Value*> splitResults(JvpArgs& a, const std::vector<Value*>& results, const std::vector<size_t>& withTangent) {
  const size_t n = a.op.numResults();
  for (size_t i = 0; i < n; ++i) a.y[i] = results[i];
  std::vector<Value*> tangents(n, nullptr);
  for (size_t k = 0; k < withTangent.size(); ++k) tangents[withTangent[k]] = results[n + k];
  return tangents;
}

std::vector<Value*> whileJvp(JvpArgs& a) {
  std::vector<size_t> d = differentiable(a.x);
  std::vector<Value*> carries = a.x;
  for (size_t i : d) carries.push_back(orZeros(a.b, a.t[i], a.x[i]));
  std::vector<Value*> results = a.b.while_(
      carries,
      [&](Builder& c, const std::vector<Value*>& args) {
        return emitBody(a.emitter, c, a.op.region(0), args, d, {});
      },
      [&](Builder& c, const std::vector<Value*>& args) {
        return emitBody(a.emitter, c, a.op.region(1), args, d, d);
      });
  return splitResults(a, results, d);
}

// if and case: every branch yields its primals and the tangents of the differentiable
// results.
std::vector<Value*> branchesJvp(JvpArgs& a) {
  std::vector<size_t> d;
  for (size_t i = 0; i < a.op.numResults(); ++i)
    if (isDifferentiable(a.op.result(i)->type())) d.push_back(i);
  std::vector<BodyFn> branches;
  for (size_t r = 0; r < a.op.numRegions(); ++r)
    branches.push_back([&, r](Builder& c, const std::vector<Value*>&) {
      return emitBody(a.emitter, c, a.op.region(r), {}, {}, d);
    });
  std::vector<Value*> results =
      a.op.is(O::If) ? a.b.if_(a.x[0], branches[0], branches[1]) : a.b.case_(a.x[0], branches);
  return splitResults(a, results, d);
}

}  // namespace

void addControlFlowRules(OpTable<AdRules>& t) {
  t[O::While].jvp = &whileJvp;
  t[O::If].jvp = &branchesJvp;
  t[O::Case].jvp = &branchesJvp;
}

}  // namespace kiln::transforms
