// Kernels: while, if, case, func.call and composite (calls its decomposition), and
// kiln's autodiff constructs, which run what they wrap.
#include "interp/kernels.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

HostValues whileLoop(const Op& op, const HostValues& v, EvalContext& ctx) {
  HostValues state = v;
  for (;;) {
    ctx.checkTime();
    HostValues cond = ctx.runRegion(op.region(0), state);
    if (!cond.at(0).tensor().boolAt(0)) return state;
    state = ctx.runRegion(op.region(1), state);
  }
}

HostValues ifThenElse(const Op& op, const HostValues& v, EvalContext& ctx) {
  return ctx.runRegion(op.region(v[0].tensor().boolAt(0) ? 0 : 1), {});
}

// case runs branch `index`; an index out of range runs the last branch.
HostValues caseOf(const Op& op, const HostValues& v, EvalContext& ctx) {
  int64_t index = v[0].tensor().intAt(0);
  int64_t last = static_cast<int64_t>(op.numRegions()) - 1;
  if (index < 0 || index > last) index = last;
  return ctx.runRegion(op.region(static_cast<size_t>(index)), {});
}

HostValues call(const Op& op, const HostValues& v, EvalContext& ctx) {
  return ctx.callFunction(op.attr("callee").asString(), v);
}

HostValues composite(const Op& op, const HostValues& v, EvalContext& ctx) {
  return ctx.callFunction(op.attr("decomposition").asString(), v);
}

// A fusion is evaluated as what it stands for: its region on its operands.
HostValues fusion(const Op& op, const HostValues& v, EvalContext& ctx) {
  return ctx.runRegion(op.region(0), v);
}

// custom_jvp and custom_vjp run their primal: the rules are for the transforms only.
HostValues customDerivative(const Op& op, const HostValues& v, EvalContext& ctx) {
  return ctx.callFunction(op.attr("primal").asString(), v);
}

// A checkpoint decides what reverse mode stores; run, it is its region.
HostValues checkpoint(const Op& op, const HostValues& v, EvalContext& ctx) { return ctx.runRegion(op.region(0), v); }

HostValues passThrough(const Op&, const HostValues& v, EvalContext&) { return v; }

}  // namespace

void addControlFlowKernels(KernelTable& t) {
  t.set(ops::While, &whileLoop);
  t.set(ops::If, &ifThenElse);
  t.set(ops::Case, &caseOf);
  t.set(ops::FuncCall, &call);
  t.set(ops::Composite, &composite);
  t.set(ops::OptimizationBarrier, &passThrough);
  t.set(ops::Fusion, &fusion);
  t.set(ops::CustomJvp, &customDerivative);
  t.set(ops::CustomVjp, &customDerivative);
  t.set(ops::Checkpoint, &checkpoint);
  t.unsupported(ops::CustomLin,
                "the linearization of a custom_vjp has no forward mode; it exists to be transposed by vjp");
}

}  // namespace kiln::interp
