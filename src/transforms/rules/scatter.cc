// Autodiff rules of stablehlo.scatter with one input. A scatter that adds is linear:
// its tangent scatters the updates' tangents into the input's, and its transpose hands
// the cotangent to the input and gathers it for the updates (zero for updates the
// scatter drops as out of bounds). A scatter that replaces routes each element's tangent
// from whichever of input or update it ended up holding; which one is found as JAX does,
// by scattering the updates' numbers and gathering them back. A scatter that keeps the
// max (min) routes it from whichever of them attain the result, ties sharing evenly, as
// JAX's _scatter_extremal_jvp does. A scatter that multiplies is differentiated for any
// indices (JAX requires unique ones): each element's tangent is its input's tangent times
// the product of what lands on it, plus its input times, per landing update, that
// update's tangent times the product of the others there.
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

namespace O = ops;
using D = ComparisonDirection;

enum class Combiner { Add, Multiply, Replace, Extremal, Other };

Combiner combinerOf(const Op& op) {
  const Region& body = op.region(0);
  if (body.numArguments() == 2 && body.size() == 1 && body.terminator()->operand(0) == body.argument(1))
    return Combiner::Replace;
  const Op* f = binaryBodyOp(body);
  if (f && f->is(O::Add)) return Combiner::Add;
  if (f && f->is(O::Multiply)) return Combiner::Multiply;
  if (f && (f->is(O::Maximum) || f->is(O::Minimum))) return Combiner::Extremal;
  return Combiner::Other;
}

ScatterDims scatterDims(const Op& op) { return ScatterDims::fromAttr(op.attr("scatter_dimension_numbers")); }

// The gather that reads, for each update element, the operand element it scatters to.
Value* gatherBack(Builder& b, Value* from, Value* indices, const ScatterDims& s, const Type& updates) {
  return b.gather(from, indices, s.asGather(), s.windowSizes(from->type().shape(), updates.shape()));
}

// A scatter of `updates` into `into` that combines by `combine` (add, multiply).
Value* scatterWith(Builder& b, OpCode combine, Value* into, Value* indices, Value* updates, const ScatterDims& s) {
  return b.scatter({into}, indices, {updates}, s, [combine](Builder& c, const std::vector<Value*>& v) {
    return std::vector<Value*>{c.binary(combine, v[0], v[1])};
  })[0];
}

Value* scatterAdd(Builder& b, Value* into, Value* indices, Value* updates, const ScatterDims& s) {
  return scatterWith(b, O::Add, into, indices, updates, s);
}

// The tangent of a scatter that keeps the max (min) of `operand` and the `updates` that
// land on each element (`result`). Per update element, gathered back from where it
// lands: whether it attains the result (it won), whether the operand's value does (it
// was kept), how many updates won there and how many landed there (scatter-adds of
// ones). The winners and a kept operand share the element's tangent evenly; the operand
// gives up the rest, each landing update taking away an equal part of what it gives up,
// so that one scatter-add of every update's part onto the operand's tangent does it all.
// Counts are 0 only for updates the scatter drops (out of bounds), whose parts it drops
// too; their denominators are made 1 so that no infinity meets a zero cotangent.
Value* extremalTangent(Builder& b, Value* operand, Value* indices, Value* updates, Value* result, Value* tOperand,
                       Value* tUpdates, const ScatterDims& s) {
  const Type& ut = updates->type();
  Value* one = b.splat(ut, 1);
  Value* zero = zeros(b, ut);
  auto nonzero = [&](Value* count) { return b.select(b.compare(count, zero, D::EQ), one, count); };
  auto countAt = [&](Value* perUpdate) {
    return gatherBack(b, scatterAdd(b, zeros(b, operand->type()), indices, perUpdate, s), indices, s, ut);
  };
  Value* final = gatherBack(b, result, indices, s, ut);
  Value* won = b.compare(updates, final, D::EQ);
  Value* kept = b.compare(gatherBack(b, operand, indices, s, ut), final, D::EQ);
  Value* winners = countAt(b.select(won, one, zero));
  Value* landed = nonzero(countAt(one));
  Value* share = b.binary(O::Divide, one, nonzero(b.binary(O::Add, winners, b.select(kept, one, zero))));
  Value* updateCoefficient = b.select(won, share, zero);
  Value* operandCoefficient = b.binary(O::Divide, b.binary(O::Subtract, b.select(kept, share, zero), one), landed);
  Value* parts = b.binary(O::Add, b.binary(O::Multiply, gatherBack(b, tOperand, indices, s, ut), operandCoefficient),
                          b.binary(O::Multiply, tUpdates, updateCoefficient));
  return scatterAdd(b, tOperand, indices, parts, s);
}

// The tangent of a scatter that multiplies `operand` by the `updates` landing on each
// element: tOperand · P + operand · Σ tUpdate_k · (product of the other updates there),
// P the product of all. The products of the others are found without dividing by zero:
// per element, the product of its nonzero updates and how many are zero, gathered back
// to each update; an update that is zero has the others' product when it is the only
// zero there, a nonzero one has product / itself when there is no zero there, and both
// are 0 otherwise. Updates the scatter drops (out of bounds) are dropped by the
// scatter-add of their parts too.
Value* multiplyTangent(Builder& b, Value* operand, Value* indices, Value* updates, Value* tOperand, Value* tUpdates,
                       const ScatterDims& s) {
  const Type& ut = updates->type();
  const Type& ot = operand->type();
  Value* one = b.splat(ut, 1);
  Value* zero = zeros(b, ut);
  Value* isZero = b.compare(updates, zero, D::EQ);
  Value* nonzeroProduct = scatterWith(b, O::Multiply, b.splat(ot, 1), indices, b.select(isZero, one, updates), s);
  Value* zeroCount = scatterAdd(b, zeros(b, ot), indices, b.select(isZero, one, zero), s);
  Value* productAt = gatherBack(b, nonzeroProduct, indices, s, ut);
  Value* zerosAt = gatherBack(b, zeroCount, indices, s, ut);
  Value* others = b.select(isZero, b.select(b.compare(zerosAt, one, D::EQ), productAt, zero),
                           b.select(b.compare(zerosAt, zero, D::EQ),
                                    b.binary(O::Divide, productAt, b.select(isZero, one, updates)), zero));
  Value* all = b.select(b.compare(zeroCount, zeros(b, ot), D::EQ), nonzeroProduct, zeros(b, ot));
  Value* fromOperand = b.binary(O::Multiply, tOperand, all);
  Value* fromUpdates =
      b.binary(O::Multiply, operand, scatterAdd(b, zeros(b, ot), indices, b.binary(O::Multiply, tUpdates, others), s));
  return b.binary(O::Add, fromOperand, fromUpdates);
}

void requireOneInput(const Op& op, const char* mode) {
  if (op.numOperands() != 3) unsupportedRule(op, mode, "a scatter of several inputs");
}

std::vector<Value*> scatterJvp(JvpArgs& a) {
  requireOneInput(a.op, "jvp");
  Builder& b = a.b;
  ScatterDims s = scatterDims(a.op);
  Value* operand = a.x[0];
  Value* indices = a.x[1];
  Value* updates = a.x[2];
  Value* tOperand = orZeros(b, a.t[0], operand);
  Value* tUpdates = orZeros(b, a.t[2], updates);
  switch (combinerOf(a.op)) {
    case Combiner::Add: return {scatterAdd(b, tOperand, indices, tUpdates, s)};
    case Combiner::Multiply: return {multiplyTangent(b, operand, indices, updates, tOperand, tUpdates, s)};
    case Combiner::Replace: {
      // Number the update windows 1, 2, ... (0: no update), scatter the numbers, gather
      // them back: an update survives where it reads its own number.
      const Type& ut = updates->type();
      Shape idShape = ut.shape();
      for (int64_t d : s.updateWindowDims) idShape[static_cast<size_t>(d)] = 1;
      int64_t count = 1;
      for (int64_t n : idShape) count *= n;
      Type ids = Type::tensor(DType::I64, idShape);
      Value* numbers = b.binary(O::Add, b.reshape(b.iota(Type::tensor(DType::I64, {count}), 0), idShape),
                                b.splat(ids, 1));
      Dims all;  // size-1 window dimensions broadcast to the window: dims map one to one
      for (int64_t d = 0; d < ut.rank(); ++d) all.push_back(d);
      Value* updateIds = b.broadcastInDim(numbers, ut.shape(), all);
      Value* scattered = b.scatter({zeros(b, Type::tensor(DType::I64, operand->type().shape()))}, indices, {updateIds}, s,
                                   [](Builder&, const std::vector<Value*>& v) { return std::vector<Value*>{v[1]}; })[0];
      Value* survived = b.compare(updateIds, gatherBack(b, scattered, indices, s, ut), D::EQ);
      Value* untouched = b.compare(scattered, zeros(b, scattered->type()), D::EQ);
      Value* keptOperand = b.select(untouched, tOperand, zeros(b, operand->type()));
      Value* keptUpdates = b.select(survived, tUpdates, zeros(b, ut));
      return {scatterAdd(b, keptOperand, indices, keptUpdates, s)};
    }
    case Combiner::Extremal:
      if (isComplex(operand->type().dtype())) unsupportedRule(a.op, "jvp", "complex max/min");
      return {extremalTangent(b, operand, indices, updates, a.y[0], tOperand, tUpdates, s)};
    case Combiner::Other: break;
  }
  unsupportedRule(a.op, "jvp", "a scatter that neither adds, multiplies, replaces, nor keeps the max or min");
}

// Whether each update element lands inside the operand (scatter drops those that do
// not): its window's start, along every dimension it indexes, within [0, size - window].
Value* inBounds(Builder& b, Value* indices, const ScatterDims& s, const Type& operand, const Type& updates) {
  const Type& it = indices->type();
  const bool implicitVector = s.indexVectorDim == it.rank();
  Value* bound = largestStarts(b, it, s.indexVectorDim, s.scatterDimsToOperandDims, operand.shape(),
                               s.windowSizes(operand.shape(), updates.shape()));
  Value* ok = b.binary(O::And, b.compare(indices, zeros(b, it), D::GE), b.compare(indices, bound, D::LE));
  if (!implicitVector) {
    Value* yes = b.splat(Type::scalar(DType::I1), 1);
    ok = b.reduce({ok}, {yes}, {s.indexVectorDim}, [](Builder& c, const std::vector<Value*>& v) {
      return std::vector<Value*>{c.binary(O::And, v[0], v[1])};
    })[0];
  }
  // The scatter dimensions of the updates follow the indices' batch dimensions in order.
  Dims scatterDimsOfUpdates;
  for (int64_t d = 0; d < updates.rank(); ++d)
    if (std::find(s.updateWindowDims.begin(), s.updateWindowDims.end(), d) == s.updateWindowDims.end())
      scatterDimsOfUpdates.push_back(d);
  return b.broadcastInDim(ok, updates.shape(), scatterDimsOfUpdates);
}

std::vector<Value*> scatterTranspose(TransposeArgs& a) {
  requireOneInput(a.op, "transpose");
  if (combinerOf(a.op) != Combiner::Add) unsupportedRule(a.op, "transpose", "a scatter that does not add");
  Builder& b = a.b;
  ScatterDims s = scatterDims(a.op);
  Value* indices = a.x[1];
  const Type& operand = a.op.operand(0)->type();
  const Type& updates = a.op.operand(2)->type();
  Value* ctUpdates = nullptr;
  if (a.linear[2]) {
    Value* gathered = gatherBack(b, a.ct[0], indices, s, updates);
    ctUpdates = b.select(inBounds(b, indices, s, operand, updates), gathered, zeros(b, updates));
  }
  return {a.linear[0] ? a.ct[0] : nullptr, nullptr, ctUpdates};
}

// scatter with the batch as one more batching dimension of inputs, indices and updates
// (the shared ones broadcast).
std::vector<Value*> scatterBatch(BatchArgs& a) {
  const size_t n = (a.op.numOperands() - 1) / 2;
  ScatterDims s = scatterDims(a.op);
  const bool implicit = s.indexVectorDim == a.op.operand(n)->type().rank();
  std::vector<Value*> inputs, updates;
  for (size_t i = 0; i < n; ++i) inputs.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
  Value* indices = batchedValue(a.b, a.x[n], a.batched[n], a.size);
  for (size_t i = n + 1; i < a.x.size(); ++i) updates.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
  ScatterDims e;
  e.updateWindowDims = pastBatch(s.updateWindowDims);
  e.insertedWindowDims = pastBatch(s.insertedWindowDims);
  e.inputBatchingDims = pastBatch(s.inputBatchingDims, true);
  e.scatterIndicesBatchingDims = pastBatch(s.scatterIndicesBatchingDims, true);
  e.scatterDimsToOperandDims = pastBatch(s.scatterDimsToOperandDims);
  e.indexVectorDim = implicit ? indices->type().rank() : s.indexVectorDim + 1;
  NamedAttrList attrs = a.op.attrs();
  setAttr(attrs, "scatter_dimension_numbers", e.toAttr());
  std::vector<Value*> operands = inputs;
  operands.push_back(indices);
  operands.insert(operands.end(), updates.begin(), updates.end());
  return rebuilt(a.b, a.op, operands, attrs);
}

}  // namespace

void addScatterRules(OpTable<OpRules>& t) { t[O::Scatter] = {&scatterJvp, &scatterTranspose, nullptr, &scatterBatch}; }

}  // namespace kiln::transforms
