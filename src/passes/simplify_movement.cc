// Simplification rules for data movement and structure: transposes, reshapes,
// broadcasts, slices, concatenation, padding, reversal, size-1 reductions, transposes
// folded into dot_general, tuples, and dynamic slices at constant offsets.
//
// Moving data never changes a value, so these rules are exact as long as every result
// element comes from the same operand element as before; the comment on each rule says
// why it does (and, for reductions, which init values keep the arithmetic exact).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "passes/simplify_rules.h"

namespace kiln::passes::simplify {
namespace {

using Dims = std::vector<int64_t>;

Dims ints(const Op& op, const char* name) { return op.attr(name).asInts(); }

bool isIota(const Dims& dims) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != static_cast<int64_t>(i)) return false;
  return true;
}

const Type& typeOf(const Value* v) { return v->type(); }

// ---- transpose, reshape, broadcast_in_dim ------------------------------------------

// transpose(x, identity) → x.
bool transposeIdentity(Op& op, Rewriter& rw) {
  if (!isIota(ints(op, "permutation")) || typeOf(op.operand(0)) != typeOf(op.result())) return false;
  rw.replace(op.operand(0));
  return true;
}

// transpose(transpose(x, p), q) → transpose(x, c) with c[i] = p[q[i]] (result dimension
// i is dimension q[i] of the inner result, which is dimension p[q[i]] of x); x itself
// when c is the identity.
bool transposeTranspose(Op& op, Rewriter& rw) {
  Op* inner = op.operand(0)->definingOp();
  if (!inner || !inner->is(ops::Transpose)) return false;
  Dims p = ints(*inner, "permutation"), q = ints(op, "permutation");
  Dims c(q.size());
  for (size_t i = 0; i < q.size(); ++i) c[i] = p[static_cast<size_t>(q[i])];
  Value* x = inner->operand(0);
  if (isIota(c) && typeOf(x) == typeOf(op.result())) {
    rw.replace(x);
  } else {
    rw.replace(rw.createValue(ops::Transpose, {x}, typeOf(op.result()),
                              {{"permutation", Attribute::i64Array(c)}}, {inner}));
  }
  return true;
}

// transpose(x, p) that only moves dimensions of size 1 → reshape(x): when the other
// dimensions keep their relative order, the row-major order of the elements is the same.
bool transposeAsReshape(Op& op, Rewriter& rw) {
  const Type& xt = typeOf(op.operand(0));
  int64_t last = -1;
  for (int64_t d : ints(op, "permutation")) {
    if (xt.dim(d) == 1) continue;
    if (d < last) return false;
    last = d;
  }
  rw.replace(rw.createValue(ops::Reshape, {op.operand(0)}, typeOf(op.result())));
  return true;
}

// reshape to the operand's own type → the operand (row-major order is unchanged).
bool reshapeSameType(Op& op, Rewriter& rw) {
  if (typeOf(op.operand(0)) != typeOf(op.result())) return false;
  rw.replace(op.operand(0));
  return true;
}

// reshape(reshape(x)) → reshape(x): both keep the row-major element order, so the
// composition is the one reshape (or x when the shapes agree).
bool reshapeReshape(Op& op, Rewriter& rw) {
  Op* inner = op.operand(0)->definingOp();
  if (!inner || !inner->is(ops::Reshape)) return false;
  Value* x = inner->operand(0);
  if (typeOf(x) == typeOf(op.result())) rw.replace(x);
  else rw.replace(rw.createValue(ops::Reshape, {x}, typeOf(op.result()), {}, {inner}));
  return true;
}

// broadcast_in_dim(x, dims = [0, 1, ...]) to x's own type → x: every element maps to
// itself. (Other dims with the same type would transpose, so they are not matched.)
bool broadcastIdentity(Op& op, Rewriter& rw) {
  if (!isIota(ints(op, "broadcast_dimensions")) || typeOf(op.operand(0)) != typeOf(op.result())) return false;
  rw.replace(op.operand(0));
  return true;
}

// broadcast_in_dim(broadcast_in_dim(x, d1), d2) → broadcast_in_dim(x, d2[d1[i]]):
// dimension i of x lands on d1[i] of the inner result and so on d2[d1[i]] of the outer;
// a size-1 dimension expands either way, a full one stays full through both.
bool broadcastBroadcast(Op& op, Rewriter& rw) {
  Op* inner = op.operand(0)->definingOp();
  if (!inner || !inner->is(ops::BroadcastInDim)) return false;
  Dims d1 = ints(*inner, "broadcast_dimensions"), d2 = ints(op, "broadcast_dimensions");
  Dims c(d1.size());
  for (size_t i = 0; i < d1.size(); ++i) c[i] = d2[static_cast<size_t>(d1[i])];
  rw.replace(rw.createValue(ops::BroadcastInDim, {inner->operand(0)}, typeOf(op.result()),
                            {{"broadcast_dimensions", Attribute::i64Array(c)}}, {inner}));
  return true;
}

// ---- slice, concatenate, pad, reverse -------------------------------------------

// A slice whose result has the operand's type takes every element in order (sizes equal
// the dimensions, so start 0 and, for dimensions above 1, stride 1) → the operand.
bool sliceFull(Op& op, Rewriter& rw) {
  if (typeOf(op.operand(0)) != typeOf(op.result())) return false;
  rw.replace(op.operand(0));
  return true;
}

// slice(slice(x, s1, l1, t1), s2, l2, t2) → one slice: element j of the outer result is
// x[s1 + (s2 + j t2) t1] = x[(s1 + s2 t1) + j (t1 t2)], per dimension, for as many j as
// the outer result has; the limit is just past the last element taken.
bool sliceSlice(Op& op, Rewriter& rw) {
  Op* inner = op.operand(0)->definingOp();
  if (!inner || !inner->is(ops::Slice)) return false;
  Dims s1 = ints(*inner, "start_indices"), t1 = ints(*inner, "strides");
  Dims s2 = ints(op, "start_indices"), t2 = ints(op, "strides");
  const Shape& out = typeOf(op.result()).shape();
  size_t rank = out.size();
  Dims start(rank), limit(rank), stride(rank);
  for (size_t d = 0; d < rank; ++d) {
    stride[d] = t1[d] * t2[d];
    start[d] = s1[d] + s2[d] * t1[d];
    limit[d] = start[d] + (out[d] - 1) * stride[d] + 1;
    // An empty dimension: the composed start may lie past the operand (a slice [1:1] of
    // a slice [1:2:2] of 2 elements would start at 3), and any empty range will do.
    if (out[d] == 0) start[d] = limit[d] = 0;
  }
  rw.replace(rw.createValue(ops::Slice, {inner->operand(0)}, typeOf(op.result()),
                            {{"start_indices", Attribute::i64Array(start)},
                             {"limit_indices", Attribute::i64Array(limit)},
                             {"strides", Attribute::i64Array(stride)}},
                            {inner}));
  return true;
}

// concatenate of one operand → the operand; operands with no extent along the
// concatenated dimension contribute no elements and are dropped.
bool concatenateTrivial(Op& op, Rewriter& rw) {
  int64_t dim = op.attr("dimension").asInt();
  std::vector<Value*> kept;
  for (Value* v : op.operands())
    if (typeOf(v).dim(dim) != 0) kept.push_back(v);
  if (kept.empty()) kept.push_back(op.operand(0));  // all empty: any one stands for them
  if (kept.size() == 1 && typeOf(kept[0]) == typeOf(op.result())) {
    rw.replace(kept[0]);
    return true;
  }
  if (kept.size() == op.numOperands()) return false;
  rw.setOperands(kept);
  return true;
}

// pad with zero low, high and interior padding → the operand.
bool padNoop(Op& op, Rewriter& rw) {
  for (const char* name : {"edge_padding_low", "edge_padding_high", "interior_padding"})
    for (int64_t p : ints(op, name))
      if (p != 0) return false;
  if (typeOf(op.operand(0)) != typeOf(op.result())) return false;
  rw.replace(op.operand(0));
  return true;
}

// reverse over dimensions of size 0 or 1 moves nothing: those dimensions are dropped
// from the list, and a reverse left with none → the operand.
bool reverseTrivialDims(Op& op, Rewriter& rw) {
  Dims dims = ints(op, "dimensions"), kept;
  const Type& t = typeOf(op.operand(0));
  for (int64_t d : dims)
    if (t.dim(d) > 1) kept.push_back(d);
  if (kept.empty()) {
    rw.replace(op.operand(0));
    return true;
  }
  if (kept.size() == dims.size()) return false;
  rw.setAttr("dimensions", Attribute::i64Array(kept));
  return true;
}

// reverse(reverse(x, a), b) → reverse(x, a Δ b): reversing a dimension twice restores
// it; x itself when the symmetric difference is empty.
bool reverseReverse(Op& op, Rewriter& rw) {
  Op* inner = op.operand(0)->definingOp();
  if (!inner || !inner->is(ops::Reverse)) return false;
  Dims a = ints(*inner, "dimensions"), b = ints(op, "dimensions"), both;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  Value* x = inner->operand(0);
  if (both.empty()) rw.replace(x);
  else rw.replace(rw.createValue(ops::Reverse, {x}, typeOf(op.result()),
                                 {{"dimensions", Attribute::i64Array(both)}}, {inner}));
  return true;
}

// ---- reduce -------------------------------------------------------------------------

// The binary op a reduce body applies to its two arguments (in either order) and
// returns, or null when the body is anything else.
const Op* reducerOp(const Op& reduce) { return binaryBodyOp(reduce.region(0)); }

// reduce(x, init) over dimensions that all have size 1 (or over none) → reshape(x) when
// init is an exact identity of a body that is one binary op: each result element is
// body(init, x[...]) = x[...]. With any other init it is not: e.g. a sum with init
// +0.0 turns -0.0 into +0.0. Single-input reductions whose body types match x only.
bool reduceTrivial(Op& op, Rewriter& rw) {
  if (op.numOperands() != 2 || op.numResults() != 1) return false;
  Value* x = op.operand(0);
  const Type& xt = typeOf(x);
  for (int64_t d : ints(op, "dimensions"))
    if (xt.dim(d) != 1) return false;
  const Op* f = reducerOp(op);
  auto init = splatOf(op.operand(1));
  if (!f || !init) return false;
  Type scalar = Type::scalar(xt.dtype());
  if (typeOf(op.operand(1)) != scalar || typeOf(f->result()) != scalar ||
      op.region(0).argument(0)->type() != scalar || op.region(0).argument(1)->type() != scalar ||
      typeOf(op.result()).dtype() != xt.dtype() || !isReducerIdentity(f->code(), *init))
    return false;
  if (xt == typeOf(op.result())) rw.replace(x);
  else rw.replace(rw.createValue(ops::Reshape, {x}, typeOf(op.result())));
  return true;
}

// ---- dot_general --------------------------------------------------------------------

// dot_general(transpose(l, p), r) → dot_general(l, r) with every dimension number d of
// that side renamed to p[d]. The batch and contracting lists keep their order, so the
// sums run over the same terms in the same order (bit-exact); the result lists the free
// dimensions of each side in increasing order, so the rule applies only when p keeps
// the free dimensions in increasing order. Likewise for the rhs.
bool dotTranspose(Op& op, Rewriter& rw) {
  if (!op.attr("dot_dimension_numbers")) return false;
  DotDims dn = DotDims::fromAttr(op.attr("dot_dimension_numbers"));
  Dims* batch[2] = {&dn.lhsBatch, &dn.rhsBatch};
  Dims* contract[2] = {&dn.lhsContracting, &dn.rhsContracting};
  std::vector<Value*> operands = op.operands();
  std::vector<const Op*> absorbed;
  for (size_t side = 0; side < 2; ++side) {
    Op* t = op.operand(side)->definingOp();
    if (!t || !t->is(ops::Transpose)) continue;
    Dims p = ints(*t, "permutation");
    int64_t rank = static_cast<int64_t>(p.size());
    std::vector<bool> used(p.size(), false);
    for (int64_t d : *batch[side]) used[static_cast<size_t>(d)] = true;
    for (int64_t d : *contract[side]) used[static_cast<size_t>(d)] = true;
    int64_t last = -1;
    bool ordered = true;
    for (int64_t d = 0; d < rank; ++d) {
      if (used[static_cast<size_t>(d)]) continue;
      ordered = ordered && p[static_cast<size_t>(d)] > last;
      last = p[static_cast<size_t>(d)];
    }
    if (!ordered) continue;
    for (int64_t& d : *batch[side]) d = p[static_cast<size_t>(d)];
    for (int64_t& d : *contract[side]) d = p[static_cast<size_t>(d)];
    operands[side] = t->operand(0);
    absorbed.push_back(t);
  }
  if (absorbed.empty()) return false;
  rw.setAttr("dot_dimension_numbers", dn.toAttr());
  rw.setOperands(operands, absorbed);
  return true;
}

// transpose(dot_general(l, r), p) → dot_general(r, l) when p keeps the batch dimensions
// first and moves the rhs's free dimensions before the lhs's, each block in its order:
// the result of the swapped dot exactly (the same products, summed over the same
// contracting indices in the same order). The backward pass of a matmul makes these
// (the weight gradient (dYᵀ·X)ᵀ), and without the rule the transpose is materialized.
bool transposeOfDot(Op& op, Rewriter& rw) {
  Op* dot = op.operand(0)->definingOp();
  if (!dot || !dot->is(ops::DotGeneral) || !dot->attr("dot_dimension_numbers") ||
      op.operand(0)->uses().size() != 1)
    return false;
  DotDims dn = DotDims::fromAttr(dot->attr("dot_dimension_numbers"));
  auto count = [](size_t n) { return static_cast<int64_t>(n); };
  int64_t batch = count(dn.lhsBatch.size());
  int64_t lhsFree = typeOf(dot->operand(0)).rank() - batch - count(dn.lhsContracting.size());
  int64_t rhsFree = typeOf(dot->operand(1)).rank() - batch - count(dn.rhsContracting.size());
  Dims swapped;
  for (int64_t d = 0; d < batch; ++d) swapped.push_back(d);
  for (int64_t d = 0; d < rhsFree; ++d) swapped.push_back(batch + lhsFree + d);
  for (int64_t d = 0; d < lhsFree; ++d) swapped.push_back(batch + d);
  if (ints(op, "permutation") != swapped || lhsFree == 0 || rhsFree == 0) return false;
  NamedAttrList attrs = dot->attrs();
  setAttr(attrs, "dot_dimension_numbers",
          DotDims{dn.rhsBatch, dn.lhsBatch, dn.rhsContracting, dn.lhsContracting}.toAttr());
  if (Attribute precision = findAttr(attrs, "precision_config"); precision && precision.asArray().size() == 2)
    setAttr(attrs, "precision_config", Attribute::array({precision.asArray()[1], precision.asArray()[0]}));
  rw.replace(rw.createValue(ops::DotGeneral, {dot->operand(1), dot->operand(0)}, typeOf(op.result()),
                            std::move(attrs), {dot}));
  return true;
}

// ---- tuples, dynamic_slice --------------------------------------------------------

// get_tuple_element(tuple(a0, a1, ...), i) → ai.
bool tupleElement(Op& op, Rewriter& rw) {
  Op* tuple = op.operand(0)->definingOp();
  if (!tuple || !tuple->is(ops::Tuple)) return false;
  int64_t i = op.attr("index").asInt();
  if (i < 0 || i >= static_cast<int64_t>(tuple->numOperands())) return false;
  Value* element = tuple->operand(static_cast<size_t>(i));
  if (typeOf(element) != typeOf(op.result())) return false;
  rw.replace(element);
  return true;
}

// dynamic_slice(x, constant starts) → slice(x) from the starts the spec computes:
// clamp(0, start, dim - size) per dimension (unsigned starts compared as unsigned, so
// huge ones clamp high), limit start + size, stride 1.
bool dynamicSliceConstant(Op& op, Rewriter& rw) {
  const Type& xt = typeOf(op.operand(0));
  Dims sizes = ints(op, "slice_sizes");
  size_t rank = sizes.size();
  if (op.numOperands() != rank + 1) return false;
  Dims start(rank), limit(rank), strides(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    const Literal* s = constantOf(op.operand(d + 1));
    if (!s || s->numElements() != 1) return false;
    int64_t hi = xt.dim(static_cast<int64_t>(d)) - sizes[d];
    if (isUnsignedInt(s->dtype())) {
      uint64_t u = s->uintAt(0);
      start[d] = u > static_cast<uint64_t>(hi) ? hi : static_cast<int64_t>(u);
    } else if (isSignedInt(s->dtype())) {
      start[d] = std::clamp<int64_t>(s->intAt(0), 0, hi);
    } else {
      return false;
    }
    limit[d] = start[d] + sizes[d];
  }
  rw.replace(rw.createValue(ops::Slice, {op.operand(0)}, typeOf(op.result()),
                            {{"start_indices", Attribute::i64Array(start)},
                             {"limit_indices", Attribute::i64Array(limit)},
                             {"strides", Attribute::i64Array(strides)}}));
  return true;
}

// slice / dynamic_slice of a constant whose elements are all equal → the smaller splat
// (a partitioned program slices its whole constants by partition id).
bool sliceOfSplat(Op& op, Rewriter& rw) {
  std::optional<Literal> element = splatOf(op.operand(0));
  if (!element) return false;
  rw.replace(rw.splat(typeOf(op.result()), *element));
  return true;
}

}  // namespace

void addMovementRules(RuleTable& t) {
  namespace O = ops;
  t.add(O::Transpose, "transpose-identity", transposeIdentity);
  t.add(O::Transpose, "transpose-transpose", transposeTranspose);
  t.add(O::Transpose, "transpose-as-reshape", transposeAsReshape);
  t.add(O::Transpose, "transpose-of-dot", transposeOfDot);
  t.add(O::Reshape, "reshape-same-type", reshapeSameType);
  t.add(O::Reshape, "reshape-reshape", reshapeReshape);
  t.add(O::BroadcastInDim, "broadcast-identity", broadcastIdentity);
  t.add(O::BroadcastInDim, "broadcast-broadcast", broadcastBroadcast);
  t.add(O::Slice, "slice-full", sliceFull);
  t.add(O::Slice, "slice-of-splat", sliceOfSplat);
  t.add(O::Slice, "slice-slice", sliceSlice);
  t.add(O::Concatenate, "concatenate-trivial", concatenateTrivial);
  t.add(O::Pad, "pad-noop", padNoop);
  t.add(O::Reverse, "reverse-trivial-dims", reverseTrivialDims);
  t.add(O::Reverse, "reverse-reverse", reverseReverse);
  t.add(O::Reduce, "reduce-trivial", reduceTrivial);
  t.add(O::DotGeneral, "dot-transpose", dotTranspose);
  t.add(O::GetTupleElement, "tuple-element", tupleElement);
  t.add(O::DynamicSlice, "dynamic-slice-of-splat", sliceOfSplat);
  t.add(O::DynamicSlice, "dynamic-slice-constant", dynamicSliceConstant);
}

}  // namespace kiln::passes::simplify
