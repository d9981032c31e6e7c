// Splits sums of complex numbers into sums of their parts: a stablehlo.reduce or
// reduce_window of one complex input whose body only adds becomes the complex number of
// two f32/f64 sums, of the real parts and of the imaginary parts. Complex addition is
// addition of the parts, and kiln's reduction order (ir/reduction_order.h) treats each
// part the same way (lanes from the identity -0, the halving tree, the chunks folded
// from the init's part), so the results are the same bits, and backends whose vector
// lanes hold real numbers (cpu) sum complex numbers at the speed of real ones.
#include "ir/attr_records.h"
#include "ir/builder.h"
#include "ir/ops/stablehlo.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

// Whether `op`'s body returns the sum of its two arguments, in either order.
bool bodyAdds(const Op& op) {
  const Region& body = op.region(0);
  if (body.ops().size() != 2 || body.numArguments() != 2) return false;
  const Op& add = *body.ops().front();
  const Op& ret = *body.ops().back();
  if (!add.is(ops::Add) || !ret.info().isTerminator() || ret.numOperands() != 1 || ret.operand(0) != add.result())
    return false;
  const Value* a = body.argument(0);
  const Value* b = body.argument(1);
  return (add.operand(0) == a && add.operand(1) == b) || (add.operand(0) == b && add.operand(1) == a);
}

bool splittable(const Op& op) {
  if (!op.is(ops::Reduce) && !op.is(ops::ReduceWindow)) return false;
  if (op.numOperands() != 2 || !isComplex(op.operand(0)->type().dtype())) return false;
  return bodyAdds(op);
}

void split(Op& op, const Module& module) {
  Builder b = Builder::before(op, &module);
  b.setLocation(op.loc);
  Value* x = op.operand(0);
  Value* init = op.operand(1);
  auto add = [](Builder& r, const std::vector<Value*>& args) {
    return std::vector<Value*>{r.create1(ops::Add, {args[0], args[1]})};
  };
  Value* parts[2];
  for (int k = 0; k < 2; ++k) {
    OpCode part = k == 0 ? ops::Real : ops::Imag;
    Value* xs = b.create1(part, {x});
    Value* is = b.create1(part, {init});
    parts[k] = op.is(ops::Reduce)
                   ? b.reduce({xs}, {is}, op.attr("dimensions").asInts(), add)[0]
                   : b.reduceWindow({xs}, {is}, Window::ofReduceWindow(op, x->type().rank()), add)[0];
  }
  op.result()->replaceAllUsesWith(b.create1(ops::Complex, {parts[0], parts[1]}));
}

int64_t splitIn(Region& region, const Module& module) {
  int64_t n = 0;
  std::vector<Op*> found;
  for (const auto& op : region.ops()) {
    for (size_t i = 0; i < op->numRegions(); ++i) n += splitIn(op->region(i), module);
    if (splittable(*op)) found.push_back(op.get());
  }
  for (Op* op : found) {
    split(*op, module);
    region.erase(op);
  }
  return n + static_cast<int64_t>(found.size());
}

class SplitComplexSumsPass : public Pass {
 public:
  std::string_view name() const override { return "split-complex-sums"; }
  bool run(Module& module, PassContext&) override {
    int64_t n = 0;
    for (const auto& fn : module.functions()) n += splitIn(fn->body(), module);
    return n > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> createSplitComplexSumsPass() { return std::make_unique<SplitComplexSumsPass>(); }

}  // namespace kiln::passes
