// Batching one slice at a time, for ops that have no batched form: random-number
// generation whose bounds, shape or state differ per slice (rng, rng_bit_generator) and
// opaque custom calls. A while loop over the batch takes slice i of every batched
// operand, runs the op on the slices, and writes its results into slice i of the
// batched results, so each slice gets exactly what the op gives it alone (what JAX's
// sequential batching of custom calls does). Custom calls with side effects are refused:
// running them once per slice would repeat the effect.
#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

namespace O = ops;

std::vector<Value*> sequentialBatch(BatchArgs& a) {
  if (a.op.is(O::CustomCall) && a.op.attrOrDefault("has_side_effect").asBool())
    unsupportedRule(a.op, "vmap", "a custom call with side effects");
  for (Value* v : a.op.operands())
    if (!v->type().isTensor()) unsupportedRule(a.op, "vmap", "an operand that is not a tensor");
  for (Value* r : a.op.results())
    if (!r->type().isTensor()) unsupportedRule(a.op, "vmap", "a result that is not a tensor");
  Builder& b = a.b;
  const Type index = Type::scalar(DType::I64);
  std::vector<Value*> carries = {b.splat(index, 0)};
  for (Value* r : a.op.results())
    carries.push_back(zeros(b, Type::tensor(r->type().dtype(), batchedShape(a.size, r->type().shape()))));
  std::vector<Value*> out = b.while_(
      carries,
      [&](Builder& c, const std::vector<Value*>& v) {
        return std::vector<Value*>{c.compare(v[0], c.splat(index, static_cast<double>(a.size)), ComparisonDirection::LT)};
      },
      [&](Builder& c, const std::vector<Value*>& v) {
        Value* i = v[0];
        Value* zero = c.splat(index, 0);
        auto startsAt = [&](int64_t rank) {
          std::vector<Value*> starts(static_cast<size_t>(rank) + 1, zero);
          starts[0] = i;
          return starts;
        };
        std::vector<Value*> slices;
        for (size_t k = 0; k < a.x.size(); ++k) {
          if (!a.batched[k]) {
            slices.push_back(a.x[k]);
            continue;
          }
          const Shape& shape = a.op.operand(k)->type().shape();
          Dims sizes = batchedShape(1, shape);
          slices.push_back(c.reshape(c.dynamicSlice(a.x[k], startsAt(static_cast<int64_t>(shape.size())), sizes), shape));
        }
        std::vector<Value*> results = rebuilt(c, a.op, slices, a.op.attrs(), a.op.resultTypes());
        std::vector<Value*> next = {c.binary(O::Add, i, c.splat(index, 1))};
        for (size_t r = 0; r < results.size(); ++r) {
          const Shape& shape = results[r]->type().shape();
          Value* one = c.reshape(results[r], batchedShape(1, shape));
          next.push_back(c.dynamicUpdateSlice(v[r + 1], one, startsAt(static_cast<int64_t>(shape.size()))));
        }
        return next;
      });
  return std::vector<Value*>(out.begin() + 1, out.end());
}

}  // namespace

void addSequentialRules(OpTable<OpRules>& t) {
  for (OpCode op : {O::Rng, O::RngBitGenerator, O::CustomCall}) t[op].batch = &sequentialBatch;
}

}  // namespace kiln::transforms
