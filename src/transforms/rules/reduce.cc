// Rules of stablehlo.reduce and sort. Autodiff of reduce: Each float result is differentiated by what the
// body does to make it:
// - one op on that input's two sides (the usual one-input reduce, or a variadic reduce
//   that reduces its inputs independently): a sum is linear (its transpose broadcasts
//   the cotangent back); max and min route the tangents of the elements that attain the
//   result, ties sharing evenly as in JAX; a product's tangent is Σ t_i·Π_{j≠i} x_j,
//   from the products of the elements before and after each one (no division, so zeros
//   are fine);
// - a select of one of its two sides by a predicate (argmax's and argmin's values, a
//   max written as a select): the tangent of the element it ends up holding.
// Batching (reduce and sort): the reduced or sorted dimensions move past the batch.
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

namespace O = ops;
using D = ComparisonDirection;

// The dimensions of a rank-`rank` input that a reduce over `dims` keeps.
Dims keptDims(int64_t rank, const Dims& dims) {
  Dims kept;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
  return kept;
}

Value* reduceWith(Builder& b, OpCode code, Value* x, Value* init, const Dims& dims) {
  return b.reduce({x}, {init}, dims, [code](Builder& c, const std::vector<Value*>& v) {
    return std::vector<Value*>{c.binary(code, v[0], v[1])};
  })[0];
}

// The body's op, for the single-input reduces with a one-op body; null otherwise.
const Op* reducerOp(const Op& op) { return op.numOperands() == 2 ? binaryBodyOp(op.region(0)) : nullptr; }

// One input's part of a reduce of n inputs: input k, its init, their tangents, its result.
struct Part {
  Value* x;
  Value* init;
  Value* t;
  Value* tInit;
  Value* y;
  static Part of(const JvpArgs& a, size_t k) {
    const size_t n = a.op.numResults();
    return {a.x[k], a.x[n + k], a.t[k], a.t[n + k], a.y[k]};
  }
};

// The op that makes result k of a reduce body of n inputs (arguments: the first side's
// n, then the second's) from input k's two sides alone; null when it is made otherwise.
const Op* ownReducer(const Region& body, size_t n, size_t k) {
  const Op* f = body.terminator()->operand(k)->definingOp();
  if (!f || f->parentRegion() != &body || f->numOperands() != 2 || f->numRegions()) return nullptr;
  Value* first = body.argument(k);
  Value* second = body.argument(n + k);
  bool sides = (f->operand(0) == first && f->operand(1) == second) || (f->operand(0) == second && f->operand(1) == first);
  return sides ? f : nullptr;
}

Value* sumJvp(Builder& b, const Part& p, const Dims& dims) {
  return reduceWith(b, O::Add, orZeros(b, p.t, p.x), orZeros(b, p.tInit, p.init), dims);
}

Value* extremumJvp(JvpArgs& a, const Part& p, const Dims& dims) {
  Builder& b = a.b;
  Value* x = p.x;
  Value* y = p.y;
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
  if (p.t) {
    Value* routed = reduceWith(b, O::Add, b.binary(O::Multiply, p.t, indicator), scalarZero, dims);
    out = b.binary(O::Divide, routed, safe);
  }
  if (p.tInit) {
    Value* init = b.broadcastInDim(p.tInit, y->type().shape(), {});
    out = addTangents(b, out, b.select(none, init, zeros(b, y->type())));
  }
  return out;
}

// The product of each window of `n` elements along the last dimension of x ([..., n]),
// the window moved by `low` (negative: cut) and `high` padding of ones: (n, -1) gives
// each element the product of those before it, (-1, n) of those after it.
Value* windowedProduct(Builder& b, Value* x, int64_t low, int64_t high) {
  const size_t rank = static_cast<size_t>(x->type().rank());
  Window w;
  w.dimensions.assign(rank, 1);
  w.dimensions.back() = x->type().shape().back();
  w.strides.assign(rank, 1);
  w.baseDilations.assign(rank, 1);
  w.windowDilations.assign(rank, 1);
  w.padding.assign(rank, {0, 0});
  w.padding.back() = {low, high};
  w.reversal.assign(rank, false);
  Value* one = b.splat(Type::scalar(x->type().dtype()), 1);
  return b.reduceWindow({x}, {one}, w, [](Builder& c, const std::vector<Value*>& v) {
    return std::vector<Value*>{c.binary(O::Multiply, v[0], v[1])};
  })[0];
}

// x with the reduced dimensions moved last and collapsed into one: [kept..., Π reduced].
Value* reducedLast(Builder& b, Value* x, const Dims& kept, const Dims& dims) {
  Dims perm = kept;
  perm.insert(perm.end(), dims.begin(), dims.end());
  Shape shape;
  int64_t n = 1;
  for (int64_t d : kept) shape.push_back(x->type().dim(d));
  for (int64_t d : dims) n *= x->type().dim(d);
  shape.push_back(n);
  return b.reshape(b.transpose(x, perm), shape);
}

// y = init·Π x: its tangent is init·Σ t_i·Π_{j≠i} x_j + t_init·Π x. The products of the
// others are those before each element times those after it, along the reduced
// dimensions collapsed into one.
Value* productJvp(Builder& b, const Part& p, const Dims& dims) {
  Value* x = p.x;
  Value* init = p.init;
  const Type& yt = p.y->type();
  Dims kept = keptDims(x->type().rank(), dims);
  Value* out = nullptr;
  if (p.t) {
    Value* flat = reducedLast(b, x, kept, dims);
    const int64_t n = flat->type().shape().back();
    if (n > 0) {
      Value* others = b.binary(O::Multiply, windowedProduct(b, flat, n, -1), windowedProduct(b, flat, -1, n));
      Value* terms = b.binary(O::Multiply, reducedLast(b, p.t, kept, dims), others);
      Value* sum = reduceWith(b, O::Add, terms, zeros(b, Type::scalar(yt.dtype())), {static_cast<int64_t>(kept.size())});
      out = b.binary(O::Multiply, sum, b.broadcastInDim(init, yt.shape(), {}));
    }
  }
  if (p.tInit) {
    Value* all = reduceWith(b, O::Multiply, x, b.splat(init->type(), 1), dims);
    out = addTangents(b, out, b.binary(O::Multiply, b.broadcastInDim(p.tInit, yt.shape(), {}), all));
  }
  return out;
}

// The tangent of a result its own op reduces, by the one-input rules.
Value* ownReducerJvp(JvpArgs& a, const Part& p, const Op& f, const Dims& dims) {
  switch (f.code()) {
    case O::Add: return sumJvp(a.b, p, dims);
    case O::Maximum:
    case O::Minimum: return extremumJvp(a, p, dims);
    case O::Multiply: return productJvp(a.b, p, dims);
    default: unsupportedRule(a.op, "jvp", "a reduce body of " + std::string(f.name()));
  }
}

// For result k of a reduce body of n inputs (arguments: the first side's n, then the
// second's): the select that yields it, picking between the k-th arguments of the two
// sides, and whether it picks the first side when its predicate holds; null when the
// body computes result k otherwise.
struct Selection {
  const Op* select = nullptr;
  bool firstOnTrue = true;
};
Selection selectionOf(const Region& body, size_t n, size_t k) {
  const Op* s = body.terminator()->operand(k)->definingOp();
  if (!s || !s->is(O::Select) || s->parentRegion() != &body) return {};
  Value* first = body.argument(k);
  Value* second = body.argument(n + k);
  if (s->operand(1) == first && s->operand(2) == second) return {s, true};
  if (s->operand(1) == second && s->operand(2) == first) return {s, false};
  return {};
}

// Where each element lies among the reduced dimensions (0, 1, ... in row-major order over
// `dims`): distinct along every reduction.
Value* positionsIn(Builder& b, const Shape& shape, const Dims& dims) {
  const Type type = Type::tensor(DType::I64, shape);
  Value* out = zeros(b, type);
  int64_t stride = 1;
  for (auto d = dims.rbegin(); d != dims.rend(); ++d) {
    out = b.binary(O::Add, out, b.binary(O::Multiply, b.iota(type, *d), b.splat(type, static_cast<double>(stride))));
    stride *= shape[static_cast<size_t>(*d)];
  }
  return out;
}

// A reduce whose body yields each float result by selecting one side's value: the same
// reduce runs with, for each such result, the positions of the elements (-1 for the
// init) as one more input, selected by the same predicate as the value, so that it ends
// at the position of the element whose value the result holds. The tangent is that
// element's: a sum of the tangents masked to it (or the init's tangent where the init
// won). The new reduce replaces the original.
void selectionJvp(JvpArgs& a, const Dims& dims, const std::vector<size_t>& tracked, std::vector<Value*>& out) {
  Builder& b = a.b;
  const Op& original = *a.y[0]->definingOp();  // the copy, its body's captures mapped
  const Region& body = original.region(0);
  const size_t n = a.op.numResults();
  std::vector<Selection> selections;
  for (size_t k : tracked) selections.push_back(selectionOf(body, n, k));
  const Shape& shape = a.x[0]->type().shape();
  Value* positions = positionsIn(b, shape, dims);
  std::vector<Value*> inputs(a.x.begin(), a.x.begin() + static_cast<ptrdiff_t>(n));
  std::vector<Value*> inits(a.x.begin() + static_cast<ptrdiff_t>(n), a.x.end());
  for (size_t j = 0; j < tracked.size(); ++j) {
    inputs.push_back(positions);
    inits.push_back(b.splat(Type::scalar(DType::I64), -1));
  }
  const size_t m = tracked.size();
  std::vector<Value*> results = b.reduce(inputs, inits, dims, [&](Builder& c, const std::vector<Value*>& args) {
    ValueMap map;
    for (size_t i = 0; i < n; ++i) {
      map[body.argument(i)] = args[i];
      map[body.argument(n + i)] = args[n + m + i];
    }
    for (const auto& op : body.ops()) {
      if (op->info().isTerminator()) break;
      c.copy(*op, map);
    }
    std::vector<Value*> yielded;
    for (Value* v : body.terminator()->operands()) yielded.push_back(map.count(v) ? map[v] : v);
    for (size_t j = 0; j < m; ++j) {
      Value* first = args[n + j];
      Value* second = args[n + m + n + j];
      Value* predicate = selections[j].select->operand(0);
      Value* p = map.count(predicate) ? map[predicate] : predicate;
      yielded.push_back(selections[j].firstOnTrue ? c.select(p, first, second) : c.select(p, second, first));
    }
    return yielded;
  });
  const Dims kept = keptDims(static_cast<int64_t>(shape.size()), dims);
  for (size_t j = 0; j < m; ++j) {
    const size_t k = tracked[j];
    Value* at = results[n + j];
    const Type& yt = results[k]->type();
    Value* t = a.t[k];
    Value* tInit = a.t[n + k];
    if (t) {
      Value* picked = b.compare(positions, b.broadcastInDim(at, shape, kept), D::EQ);
      Value* masked = b.select(picked, t, zeros(b, t->type()));
      out[k] = reduceWith(b, O::Add, masked, zeros(b, Type::scalar(yt.dtype())), dims);
    }
    if (tInit) {
      Value* initWon = b.compare(at, b.splat(at->type(), -1), D::EQ);
      out[k] = addTangents(b, out[k], b.select(initWon, b.broadcastInDim(tInit, yt.shape(), {}), zeros(b, yt)));
    }
  }
  for (size_t k = 0; k < n; ++k) a.y[k] = results[k];
}

std::vector<Value*> reduceJvp(JvpArgs& a) {
  Dims dims = a.op.attr("dimensions").asInts();
  const Region& body = a.op.region(0);
  const size_t n = a.op.numResults();
  std::vector<Value*> out(n, nullptr);
  std::vector<size_t> selected;
  for (size_t k = 0; k < n; ++k) {
    if (!isDifferentiable(a.op.result(k)->type())) continue;
    Part p = Part::of(a, k);
    if (!p.t && !p.tInit) continue;
    if (const Op* f = ownReducer(body, n, k)) out[k] = ownReducerJvp(a, p, *f, dims);
    else if (selectionOf(body, n, k).select) selected.push_back(k);
    else unsupportedRule(a.op, "jvp", "a reduce whose body neither reduces a float input by one op nor selects it");
  }
  if (!selected.empty()) selectionJvp(a, dims, selected, out);
  return out;
}

// Only sums are linear: the cotangent of each input element is its output's; the init
// enters every output element once.
std::vector<Value*> reduceTranspose(TransposeArgs& a) {
  const Op* f = reducerOp(a.op);
  if (!f || !f->is(O::Add)) unsupportedRule(a.op, "transpose", "a reduce that is not a sum");
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
  NamedAttrList attrs = a.op.attrs();
  setAttr(attrs, "dimensions", Attribute::i64Array(pastBatch(a.op.attr("dimensions").asInts())));
  std::vector<Value*> operands = inputs;
  operands.insert(operands.end(), inits.begin(), inits.end());
  return rebuilt(a.b, a.op, operands, attrs);
}

// sort along its dimension past the batch, every operand batched.
std::vector<Value*> sortBatch(BatchArgs& a) {
  std::vector<Value*> operands;
  for (size_t i = 0; i < a.x.size(); ++i) operands.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
  NamedAttrList attrs = a.op.attrs();
  setAttr(attrs, "dimension", Attribute::integer(a.op.attr("dimension").asInt() + 1));
  return rebuilt(a.b, a.op, operands, attrs);
}

}  // namespace

void addReduceRules(OpTable<OpRules>& t) {
  t[O::Sort].batch = &sortBatch;
  t[O::Reduce] = {&reduceJvp, &reduceTranspose, nullptr, &reduceBatch};
}

}  // namespace kiln::transforms
