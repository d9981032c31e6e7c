// Autodiff rules of the windowed reductions, as XLA and JAX build them:
// - reduce_window that sums is linear; its transpose pads the cotangent (strides as
//   interior padding) and sums it over the same window, strided by the base dilation.
// - reduce_window that takes the max (min) routes each window's tangent from the element
//   it picks: a reduce_window over (value, tangent) pairs keeping the first largest pair.
//   That pair form is linear in the tangents; its transpose is select_and_scatter, which
//   adds each window's cotangent onto the element the same comparison picks.
// - select_and_scatter is linear in its source, and its transpose is that pair form.
// - reduce_window that multiplies (cumprod on CPU) has the tangent of a product: per
//   window, the sum of each element's tangent times the product of the others, found
//   without dividing by zero from the windows' products of nonzero elements and counts
//   of zeros (as for a scatter that multiplies). The init appears once per window and
//   once per padding element in it.
// - any other reduce_window (several inputs, another body: cumlogsumexp, a complex
//   cummax) differentiates through its decomposition, a fold of its elementwise body
//   over the window's positions (ir/region_decompositions.h).
#include <limits>
#include <optional>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "ir/region_decompositions.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

namespace O = ops;
using D = ComparisonDirection;

Window windowOf(const Op& op) { return Window::ofReduceWindow(op, op.operand(0)->type().rank()); }

// The windows of `x` reduced by `op` (add or multiply), from `init` (null: zero).
Value* reduceWindowOf(Builder& b, OpCode op, Value* x, const Window& w, Value* init = nullptr) {
  if (!init) init = zeros(b, Type::scalar(x->type().dtype()));
  return b.reduceWindow({x}, {init}, w, [op](Builder& c, const std::vector<Value*>& v) {
    return std::vector<Value*>{c.binary(op, v[0], v[1])};
  })[0];
}

Value* reduceWindowSum(Builder& b, Value* x, const Window& w) { return reduceWindowOf(b, O::Add, x, w); }

// The tangent of the windowed products of `x` from `init` (tangents t and tInit, either
// null: zero). With P the product of a window's nonzero elements and Z its count of
// zeros: Σ t_k·P/x_k when Z = 0, P·(t at the zero) when Z = 1, else 0; times the init's
// part, init^n for the n = 1 + padding elements in the window; plus tInit·n·init^(n-1)
// times the elements' product.
Value* windowProductTangent(Builder& b, Value* x, Value* init, Value* t, Value* tInit, const Window& w) {
  const Type& xt = x->type();
  const Type scalar = Type::scalar(xt.dtype());
  Value* one = b.splat(xt, 1);
  Value* zero = zeros(b, xt);
  Value* isZero = b.compare(x, zero, D::EQ);
  Value* nonzero = b.select(isZero, one, x);
  Value* unit = b.splat(scalar, 1);
  Value* nonzeroProduct = reduceWindowOf(b, O::Multiply, nonzero, w, unit);
  Value* zeroCount = reduceWindowSum(b, b.select(isZero, one, zero), w);
  Value* initPart = reduceWindowOf(b, O::Multiply, one, w, init);  // init^n
  const Type& out = nonzeroProduct->type();
  Value* result = nullptr;
  if (t) {
    Value* whenNone = b.binary(O::Multiply, nonzeroProduct,
                               reduceWindowSum(b, b.select(isZero, zero, b.binary(O::Divide, t, nonzero)), w));
    Value* whenOne = b.binary(O::Multiply, nonzeroProduct, reduceWindowSum(b, b.select(isZero, t, zero), w));
    Value* product = b.select(b.compare(zeroCount, zeros(b, out), D::EQ), whenNone,
                              b.select(b.compare(zeroCount, b.splat(out, 1), D::EQ), whenOne, zeros(b, out)));
    result = b.binary(O::Multiply, product, initPart);
  }
  if (tInit) {
    Value* n = reduceWindowOf(b, O::Add, zero, w, unit);  // padding elements hold the init: 1 each
    Value* initPower = b.binary(O::Power, b.broadcastInDim(init, out.shape(), {}), b.binary(O::Subtract, n, b.splat(out, 1)));
    Value* elements = reduceWindowOf(b, O::Multiply, x, w, unit);
    Value* coefficient = b.binary(O::Multiply, b.binary(O::Multiply, n, initPower), elements);
    result = addTangents(b, result, b.binary(O::Multiply, coefficient, b.broadcastInDim(tInit, out.shape(), {})));
  }
  return result;
}

// The pair form: each window's (value, tangent) with the first value that `keeps`
// (GE: the max, LE: the min) against every later one; the init (and the padding) pairs
// the init value with `initTangent` (null: zero).
Value* pickedTangents(Builder& b, Value* x, Value* init, Value* t, const Window& w, D keeps,
                      Value* initTangent = nullptr) {
  std::vector<Value*> out = b.reduceWindow(
      {x, t}, {init, initTangent ? initTangent : zeros(b, Type::scalar(t->type().dtype()))}, w,
      [keeps](Builder& c, const std::vector<Value*>& v) {
        Value* first = c.compare(v[0], v[2], keeps);
        return std::vector<Value*>{c.select(first, v[0], v[2]), c.select(first, v[1], v[3])};
      });
  return out[1];
}

// The comparison a pair form or a select_and_scatter's select region keeps with.
std::optional<D> keepingComparison(const Region& body) {
  for (const auto& op : body.ops())
    if (op->is(O::Compare)) {
      D dir = comparisonDirectionOf(op->attr("comparison_direction"));
      if (dir == D::GE || dir == D::GT) return D::GE;
      if (dir == D::LE || dir == D::LT) return D::LE;
    }
  return std::nullopt;
}

bool noDilation(const Window& w) {
  for (size_t i = 0; i < w.baseDilations.size(); ++i)
    if (w.baseDilations[i] != 1 || w.windowDilations[i] != 1) return false;
  return true;
}

// select_and_scatter adding `source` onto the elements of `x` its windows pick.
Value* selectAndScatterAdd(Builder& b, Value* x, Value* source, const Window& w, ComparisonDirection keeps) {
  NamedAttrList attrs;
  setReduceWindowAttrs(attrs, w);
  const Type scalar = Type::scalar(x->type().dtype());
  std::vector<std::unique_ptr<Region>> regions;
  regions.push_back(b.buildRegion({scalar, scalar}, [keeps](Builder& c, const std::vector<Value*>& v) {
    return std::vector<Value*>{c.compare(v[0], v[1], keeps)};
  }));
  const Type sourceScalar = Type::scalar(source->type().dtype());
  regions.push_back(b.buildRegion({sourceScalar, sourceScalar}, [](Builder& c, const std::vector<Value*>& v) {
    return std::vector<Value*>{c.binary(O::Add, v[0], v[1])};
  }));
  return b.create(O::SelectAndScatter, {x, source, zeros(b, sourceScalar)}, std::move(attrs), std::move(regions))
      ->result();
}

// The reduce_windows reduceWindowJvp knows: one input, reduced by add, max, min or
// multiply. Others differentiate through their decomposition (ir/region_decompositions.h).
bool knownReduceWindow(const Op& op) {
  const Op* f = binaryBodyOp(op.region(0));
  return op.numOperands() == 2 && f && (f->is(O::Add) || f->is(O::Maximum) || f->is(O::Minimum) || f->is(O::Multiply));
}

std::vector<Value*> reduceWindowJvp(JvpArgs& a) {
  if (a.op.numOperands() != 2)
    unsupportedRule(a.op, "jvp", "a reduce_window of several inputs whose body is not elementwise, or whose window has more than " +
                                     std::to_string(kMaxUnrolledWindow) + " positions");
  const Op* f = binaryBodyOp(a.op.region(0));
  Window w = windowOf(a.op);
  Builder& b = a.b;
  if (f && f->is(O::Add)) {
    Value* t = reduceWindowSum(b, orZeros(b, a.t[0], a.x[0]), w);
    if (a.t[1]) t = b.binary(O::Add, t, b.broadcastInDim(a.t[1], t->type().shape(), {}));
    return {t};
  }
  if (f && (f->is(O::Maximum) || f->is(O::Minimum))) {
    const D keeps = f->is(O::Maximum) ? D::GE : D::LE;
    Value* t = a.t[0] ? pickedTangents(b, a.x[0], a.x[1], a.t[0], w, keeps) : nullptr;
    if (!a.t[1]) return {t};
    // Where a window picks the init (or its padding, which holds the init), the init's
    // tangent: 1 where it won, as the pair form of zeros with an init tangent of 1 says.
    const Type& scalar = a.x[1]->type();
    Value* won = pickedTangents(b, a.x[0], a.x[1], zeros(b, a.x[0]->type()), w, keeps, b.splat(scalar, 1));
    Value* fromInit = b.binary(O::Multiply, won, b.broadcastInDim(a.t[1], won->type().shape(), {}));
    return {addTangents(b, t, fromInit)};
  }
  if (f && f->is(O::Multiply)) {
    if (!a.t[0] && !a.t[1]) return {nullptr};
    return {windowProductTangent(b, a.x[0], a.x[1], a.t[0], a.t[1], w)};
  }
  unsupportedRule(a.op, "jvp", "a reduce_window that is not a sum, product, max or min, and whose body is not "
                               "elementwise or whose window has more than " + std::to_string(kMaxUnrolledWindow) + " positions");
}

std::vector<Value*> reduceWindowTranspose(TransposeArgs& a) {
  Builder& b = a.b;
  Window w = windowOf(a.op);
  if (a.op.numOperands() == 2) {  // a sum
    if (a.linear[1]) unsupportedRule(a.op, "transpose", "a windowed sum whose init is a tangent");
    const Shape& in = a.op.operand(0)->type().shape();
    const Shape& out = a.ct[0]->type().shape();
    Dims low, high, interior;
    for (size_t i = 0; i < in.size(); ++i) {
      auto [lo, hi] = transposedPadding(in[i], w.dimensions[i], w.strides[i], out[i], w.padding[i].first,
                                        w.baseDilations[i], w.windowDilations[i]);
      low.push_back(lo);
      high.push_back(hi);
      interior.push_back(w.strides[i] - 1);
    }
    Value* padded = b.pad(a.ct[0], zeros(b, Type::scalar(a.ct[0]->type().dtype())), low, high, interior);
    Window back;
    back.dimensions = w.dimensions;
    back.strides = w.baseDilations;
    back.baseDilations.assign(in.size(), 1);
    back.windowDilations = w.windowDilations;
    back.padding.assign(in.size(), {0, 0});
    back.reversal.assign(in.size(), false);
    return {reduceWindowSum(b, padded, back), nullptr};
  }
  // The pair form (value, tangent): scatter each window's cotangent onto its pick.
  std::optional<D> keeps = keepingComparison(a.op.region(0));
  if (a.op.numOperands() != 4 || a.linear[0] || !a.linear[1] || !keeps || !noDilation(w))
    unsupportedRule(a.op, "transpose", "a reduce_window that is neither a sum nor a pooling's tangent");
  if (!a.ct[1]) return {nullptr, nullptr, nullptr, nullptr};
  // select_and_scatter always picks an element; a window the init (or the padding, which
  // holds it) won picked none, so its cotangent goes nowhere. Unless the init is the
  // reduction's identity (-inf for max), which only a window of identities ties with.
  Value* ct = a.ct[1];
  const Op* init = a.x[2]->definingOp();
  const double identity = *keeps == D::GE ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (!init || !init->is(O::Constant) || init->attr("value").asDense().floatAt(0) != identity) {
    Value* won = pickedTangents(b, a.x[0], a.x[2], zeros(b, a.x[0]->type()), w, *keeps, b.splat(a.x[2]->type(), 1));
    ct = b.select(b.compare(won, zeros(b, won->type()), D::EQ), ct, zeros(b, ct->type()));
  }
  return {nullptr, selectAndScatterAdd(b, a.x[0], ct, w, *keeps), nullptr, nullptr};
}

std::vector<Value*> selectAndScatterJvp(JvpArgs& a) {
  const Op* f = binaryBodyOp(a.op.region(1));
  if (!f || !f->is(O::Add)) unsupportedRule(a.op, "jvp", "a select_and_scatter that does not add");
  std::optional<D> keeps = keepingComparison(a.op.region(0));
  if (!keeps) unsupportedRule(a.op, "jvp", "a select region that is not one comparison");
  Builder& b = a.b;
  Window w = windowOf(a.op);
  Value* t = a.t[1] ? selectAndScatterAdd(b, a.x[0], a.t[1], w, *keeps) : nullptr;
  if (a.t[2]) t = addTangents(b, t, b.broadcastInDim(a.t[2], a.y[0]->type().shape(), {}));
  return {t};
}

// Linear in the source: each element's cotangent is read back from the element its
// window picked.
std::vector<Value*> selectAndScatterTranspose(TransposeArgs& a) {
  if (a.linear[0]) unsupportedRule(a.op, "transpose", "the operand is a tangent");
  std::optional<D> keeps = keepingComparison(a.op.region(0));
  Builder& b = a.b;
  Window w = windowOf(a.op);
  Value* init = b.splat(Type::scalar(a.x[0]->type().dtype()),
                        *keeps == D::GE ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
  Value* ctSource = a.linear[1] ? pickedTangents(b, a.x[0], init, a.ct[0], w, *keeps) : nullptr;
  Value* ctInit = nullptr;
  if (a.linear[2]) {
    Dims all;
    for (int64_t d = 0; d < a.ct[0]->type().rank(); ++d) all.push_back(d);
    ctInit = b.reduce({a.ct[0]}, {zeros(b, Type::scalar(a.ct[0]->type().dtype()))}, all,
                      [](Builder& c, const std::vector<Value*>& v) {
                        return std::vector<Value*>{c.binary(O::Add, v[0], v[1])};
                      })[0];
  }
  return {nullptr, ctSource, ctInit};
}

// ---- batching: a window of 1 along the batch dimension ----

Window withBatch(Window w) {
  w.dimensions.insert(w.dimensions.begin(), 1);
  w.strides.insert(w.strides.begin(), 1);
  w.baseDilations.insert(w.baseDilations.begin(), 1);
  w.windowDilations.insert(w.windowDilations.begin(), 1);
  w.padding.insert(w.padding.begin(), {0, 0});
  w.reversal.insert(w.reversal.begin(), false);
  return w;
}

std::vector<Value*> reduceWindowBatch(BatchArgs& a) {
  const size_t n = a.op.numOperands() / 2;
  std::vector<Value*> operands;
  for (size_t i = 0; i < n; ++i) operands.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
  for (size_t i = n; i < 2 * n; ++i) {
    if (a.batched[i]) unsupportedRule(a.op, "vmap", "a batched init value");
    operands.push_back(a.x[i]);
  }
  NamedAttrList attrs = a.op.attrs();
  setReduceWindowAttrs(attrs, withBatch(windowOf(a.op)));
  return rebuilt(a.b, a.op, operands, attrs);
}

std::vector<Value*> selectAndScatterBatch(BatchArgs& a) {
  if (a.batched[2]) unsupportedRule(a.op, "vmap", "a batched init value");
  NamedAttrList attrs = a.op.attrs();
  setReduceWindowAttrs(attrs, withBatch(windowOf(a.op)));
  std::vector<Value*> operands = {batchedValue(a.b, a.x[0], a.batched[0], a.size),
                                  batchedValue(a.b, a.x[1], a.batched[1], a.size), a.x[2]};
  return rebuilt(a.b, a.op, operands, attrs);
}

}  // namespace

void addWindowRules(OpTable<OpRules>& t) {
  t[O::ReduceWindow] = {&reduceWindowJvp, &reduceWindowTranspose, nullptr, &reduceWindowBatch};
  t[O::ReduceWindow].differentiatesThroughDecomposition = [](const Op& op) { return !knownReduceWindow(op); };
  t[O::SelectAndScatter] = {&selectAndScatterJvp, &selectAndScatterTranspose, nullptr, &selectAndScatterBatch};
}

}  // namespace kiln::transforms
