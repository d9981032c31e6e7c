// The rule table, assembled from the rule families, and the helpers they share.
#include "transforms/op_rules.h"

#include <algorithm>

#include "ir/ops/stablehlo.h"
#include "support/error.h"
#include "transforms/batch_emitter.h"
#include "transforms/jvp_emitter.h"

namespace kiln::transforms {

const OpTable<OpRules>& opRules() {
  static const OpTable<OpRules> table = [] {
    OpTable<OpRules> t;
    addElementwiseRules(t);
    addMovementRules(t);
    addScatterRules(t);
    addLinalgRules(t);
    addFftRules(t);
    addConvolutionRules(t);
    addReduceRules(t);
    addWindowRules(t);
    addControlFlowRules(t);
    addCollectiveRules(t);
    addCustomDerivativeRules(t);
    addCheckpointRules(t);
    addSequentialRules(t);
    addLapackCallRules(t);
    return t;
  }();
  return table;
}

bool isDifferentiable(const Type& type) {
  if (type.isTuple())
    return std::any_of(type.elements().begin(), type.elements().end(), [](const Type& t) { return isDifferentiable(t); });
  return type.isTensor() && (isFloat(type.dtype()) || isComplex(type.dtype()));
}

std::vector<Value*> capturedValues(const Op& op) {
  std::vector<Value*> out;
  for (size_t r = 0; r < op.numRegions(); ++r)
    walk(op.region(r), [&](Op& inner) {
      for (Value* v : inner.operands()) {
        bool inside = false;
        for (size_t k = 0; k < op.numRegions(); ++k) inside |= op.region(k).contains(v);
        if (!inside && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
      }
    });
  return out;
}

// Tuples add element by element (integer elements too: their tangents are zeros).
Value* addTangents(Builder& b, Value* a, Value* c) {
  if (!a) return c;
  if (!c) return a;
  const Type& type = a->type();
  if (!type.isTuple()) return b.binary(ops::Add, a, c);
  std::vector<Value*> sums;
  for (size_t i = 0; i < type.elements().size(); ++i) {
    const int64_t k = static_cast<int64_t>(i);
    Value* x = b.getTupleElement(a, k);
    sums.push_back(type.elements()[i].isToken() ? x : addTangents(b, x, b.getTupleElement(c, k)));
  }
  return b.tuple(sums);
}

Value* zeros(Builder& b, const Type& type) {
  if (type.isToken()) return b.create1(ops::AfterAll, {});
  if (!type.isTuple()) return b.splat(type, 0);
  std::vector<Value*> elements;
  for (const Type& t : type.elements()) elements.push_back(zeros(b, t));
  return b.tuple(elements);
}

Value* orZeros(Builder& b, Value* t, Value* like) { return t ? t : zeros(b, like->type()); }

size_t dataOperands(const Op& op) {
  switch (op.code()) {
    case ops::DynamicSlice:
    case ops::Gather: return 1;
    case ops::DynamicUpdateSlice: return 2;
    case ops::CollectiveBroadcast: return op.attr("has_dynamic_root") ? op.numOperands() - 1 : op.numOperands();
    default: return op.numOperands();
  }
}

Value* conjugate(Builder& b, Value* x) {
  if (!isComplex(x->type().dtype())) return x;
  return b.binary(ops::Complex, b.unary(ops::Real, x), b.unary(ops::Negate, b.unary(ops::Imag, x)));
}

std::pair<int64_t, int64_t> transposedPadding(int64_t in, int64_t window, int64_t stride, int64_t out, int64_t low,
                                              int64_t baseDilation, int64_t windowDilation) {
  auto dilated = [](int64_t size, int64_t dilation) { return size == 0 ? 0 : 1 + dilation * (size - 1); };
  int64_t before = dilated(window, windowDilation) - low - 1;
  int64_t after = dilated(in, baseDilation) + dilated(window, windowDilation) - 1 - dilated(out, stride) - before;
  return {before, after};
}

Value* largestStarts(Builder& b, const Type& indices, int64_t indexVectorDim, const Dims& operandDims,
                     const Shape& operand, const Dims& window) {
  Literal bounds(Type::tensor(indices.dtype(), {static_cast<int64_t>(operandDims.size())}));
  for (size_t k = 0; k < operandDims.size(); ++k) {
    size_t d = static_cast<size_t>(operandDims[k]);
    bounds.setInt(static_cast<int64_t>(k), operand[d] - window[d]);
  }
  Value* upper = b.constant(bounds);
  if (indexVectorDim < indices.rank()) return b.broadcastInDim(upper, indices.shape(), {indexVectorDim});
  return b.broadcastInDim(b.reshape(upper, {}), indices.shape(), {});  // one component, implicit
}

std::vector<Value*> rebuilt(Builder& b, const Op& op, const std::vector<Value*>& operands, NamedAttrList attrs,
                            const TypeList& given) {
  std::vector<std::unique_ptr<Region>> regions;
  ValueMap map;
  for (size_t r = 0; r < op.numRegions(); ++r) {
    regions.push_back(std::make_unique<Region>());
    op.region(r).cloneInto(*regions.back(), map);
  }
  return b.create(op.code(), operands, std::move(attrs), std::move(regions), given)->results();
}

Value* batchedValue(Builder& b, Value* x, bool batched, int64_t size) {
  if (batched) return x;
  if (x->type().isTuple()) {
    std::vector<Value*> elements;
    for (size_t i = 0; i < x->type().elements().size(); ++i)
      elements.push_back(batchedValue(b, b.getTupleElement(x, static_cast<int64_t>(i)), false, size));
    return b.tuple(elements);
  }
  Dims dims;
  for (int64_t d = 0; d < x->type().rank(); ++d) dims.push_back(d + 1);
  return b.broadcastInDim(x, batchedShape(size, x->type().shape()), dims);
}

std::vector<Value*> everyOperandBatched(BatchArgs& a) {
  std::vector<Value*> operands;
  for (size_t i = 0; i < a.x.size(); ++i) operands.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
  return rebuilt(a.b, a.op, operands, a.op.attrs());
}

Dims pastBatch(const Dims& dims, bool withBatch) {
  Dims out;
  if (withBatch) out.push_back(0);
  for (int64_t d : dims) out.push_back(d + 1);
  return out;
}

Shape batchedShape(int64_t size, const Shape& shape) {
  Shape out = shape;
  out.insert(out.begin(), size);
  return out;
}

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

std::vector<Value*> splitResults(JvpArgs& a, const std::vector<Value*>& results, const std::vector<size_t>& withTangent) {
  const size_t n = a.op.numResults();
  for (size_t i = 0; i < n; ++i) a.y[i] = results[i];
  std::vector<Value*> tangents(n, nullptr);
  for (size_t k = 0; k < withTangent.size(); ++k) tangents[withTangent[k]] = results[n + k];
  return tangents;
}

std::vector<Value*> batchBody(BatchEmitter& parent, Builder& c, const Region& region, const std::vector<Value*>& args,
                              const std::vector<bool>& batched, const std::vector<bool>& want) {
  BatchEmitter e(c, parent.module(), parent.size(), &parent);
  for (size_t i = 0; i < region.numArguments(); ++i) e.map(region.argument(i), args[i], batched[i]);
  e.emitRegion(region);
  std::vector<Value*> out;
  const Op* ret = region.terminator();
  for (size_t i = 0; i < ret->numOperands(); ++i) {
    Value* v = e.valueOf(ret->operand(i));
    bool b = e.isBatched(ret->operand(i));
    out.push_back(want[i] ? batchedValue(c, v, b, parent.size()) : v);
  }
  return out;
}

void unsupportedRule(const Op& op, const std::string& what, const std::string& detail) {
  std::string where = op.pos.known() ? "line " + std::to_string(op.pos.line) : "";
  std::string note = detail;
  if (!where.empty()) note = note.empty() ? where : detail + ", " + where;
  std::string name(op.name());  // a custom call by its target: that is what lacks the rule
  if (op.is(ops::CustomCall)) name += " @" + op.attr("call_target_name").asString();
  throw Error(ErrorKind::Unsupported, "unsupported: " + what + " of " + name + (note.empty() ? "" : " (" + note + ")"));
}

}  // namespace kiln::transforms
