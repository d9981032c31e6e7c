// Rules of stablehlo.reduce and sort. Autodiff of reduce with one input and a one-op
// body: a sum is linear (its transpose broadcasts the cotangent back); max and min route
// the tangents of the elements that attain the result, ties sharing evenly as in JAX.
// Batching: the reduced or sorted dimensions move past the batch.
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

using O = OpCode;
using D = ComparisonDirection;

// The dimensions of a rank-`rank` input that a reduce over `dims` keeps.
Dims keptDims(int64_t rank, const Dims& dims) {
  Dims kept;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
  return kept;
}

Value* reduceWith(Builder& b, O code, Value* x, Value* init, const Dims& dims) {
  return b.reduce({x}, {init}, dims, [code](Builder& c, const std::vector<Value*>& v) {
    return std::vector<Value*>{c.binary(code, v[0], v[1])};
  })[0];
}

// The body's op, for the single-input reduces these rules cover.
O reducer(const Op& op, const char* mode) {
  const Op* f = op.numOperands() == 2 ? binaryBodyOp(op.region(0)) : nullptr;
  if (!f) unsupportedRule(op, mode, "a reduce of several inputs or with a body of more than one op");
  return f->code();
}

std::vector<Value*> reduceJvp(JvpArgs& a) {
  Builder& b = a.b;
  Dims dims = a.op.attr("dimensions").asInts();
  Value* x = a.x[0];
  Value* y = a.y[0];
  switch (reducer(a.op, "jvp")) {
    case O::Add:
      return {reduceWith(b, O::Add, orZeros(b, a.t[0], x), orZeros(b, a.t[1], a.x[1]), dims)};
    case O::Maximum:
    case O::Minimum: {
      if (isComplex(x->type().dtype())) unsupportedRule(a.op, "jvp", "complex max/min");
      const Shape& shape = x->type().shape();
      Value* attains = b.compare(x, b.broadcastInDim(y, shape, keptDims(x->type().rank(), dims)), D::EQ);
      Value* one = b.splat(x->type(), 1);
      Value* zero = zeros(b, x->type());
      Value* indicator = b.select(attains, one, zero);
      Value* scalarZero = zeros(b, Type::scalar(x->type().dtype()));
      Value* count = reduceWith(b, O::Add, indicator, scalarZero, dims);
      // Where the init attains the result and no element does, the count is 0.
      Value* none = b.compare(count, zeros(b, count->type()), D::EQ);
      Value* safe = b.select(none, b.splat(count->type(), 1), count);
      Value* out = nullptr;
      if (a.t[0]) {
        Value* routed = reduceWith(b, O::Add, b.binary(O::Multiply, a.t[0], indicator), scalarZero, dims);
        out = b.binary(O::Divide, routed, safe);
      }
      if (a.t[1]) {
        Value* init = b.broadcastInDim(a.t[1], y->type().shape(), {});
        out = addTangents(b, out, b.select(none, init, zeros(b, y->type())));
      }
      return {out};
    }
    default:
      unsupportedRule(a.op, "jvp", "a reduce body of " + std::string(opInfo(reducer(a.op, "jvp")).name));
  }
}

// Only sums are linear: the cotangent of each input element is its output's; the init
// enters every output element once.
std::vector<Value*> reduceTranspose(TransposeArgs& a) {
  if (reducer(a.op, "transpose") != O::Add) unsupportedRule(a.op, "transpose", "a reduce that is not a sum");
  Builder& b = a.b;
  const Type& input = a.op.operand(0)->type();
  Dims dims = a.op.attr("dimensions").asInts();
  Value* ctInput = a.linear[0] ? b.broadcastInDim(a.ct[0], input.shape(), keptDims(input.rank(), dims)) : nullptr;
  Value* ctInit = nullptr;
  if (a.linear[1]) {
    Dims all;
    for (int64_t d = 0; d < a.ct[0]->type().rank(); ++d) all.push_back(d);
    ctInit = reduceWith(b, O::Add, a.ct[0], zeros(b, Type::scalar(input.dtype())), all);
  }
  return {ctInput, ctInit};
}

// The inputs batched (shared ones broadcast), the reduced dimensions past the batch; the
// inits must be shared.
std::vector<Value*> reduceBatch(BatchArgs& a) {
  const size_t n = a.op.numOperands() / 2;
  std::vector<Value*> inputs, inits;
  for (size_t i = 0; i < n; ++i) inputs.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
  for (size_t i = n; i < 2 * n; ++i) {
    if (a.batched[i]) unsupportedRule(a.op, "vmap", "a batched init value");
    inits.push_back(a.x[i]);
  }
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(std::make_unique<Region>());
  ValueMap map;
  a.op.region(0).cloneInto(*regions.back(), map);
  NamedAttrList attrs = a.op.attrs();
  setAttr(attrs, "dimensions", Attribute::i64Array(pastBatch(a.op.attr("dimensions").asInts())));
  std::vector<Value*> operands = inputs;
  operands.insert(operands.end(), inits.begin(), inits.end());
  return a.b.create(O::Reduce, operands, attrs, std::move(regions))->results();
}

// sort along its dimension past the batch, every operand batched.
std::vector<Value*> sortBatch(BatchArgs& a) {
  std::vector<Value*> operands;
  for (size_t i = 0; i < a.x.size(); ++i) operands.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
  NamedAttrList attrs = a.op.attrs();
  setAttr(attrs, "dimension", Attribute::integer(a.op.attr("dimension").asInt() + 1));
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(std::make_unique<Region>());
  ValueMap map;
  a.op.region(0).cloneInto(*regions.back(), map);
  return a.b.create(O::Sort, operands, attrs, std::move(regions))->results();
}

}  // namespace

void addReduceRules(OpTable<OpRules>& t) {
  t[O::Sort].batch = &sortBatch;
  t[O::Reduce] = {&reduceJvp, &reduceTranspose, nullptr, &reduceBatch};
}

}  // namespace kiln::transforms
