// The executable decompositions of the structural and integer CHLO ops (the `decompose`
// of their registry rows). Each builds exactly the computation the interpreter's kernel
// does, so lowering keeps results bit for bit (complex square in f64 as the kernel's,
// 64-bit mulhi from 32-bit halves). The math functions, which are accurate within stated
// bounds rather than bit for bit, are in chlo_math_decompositions.cc.
#include "ir/chlo_decompositions.h"

#include <algorithm>
#include <limits>

#include "ir/attr_records.h"
#include "ir/builder.h"
#include "ir/ops/stablehlo.h"

namespace kiln {

namespace {

using D = ComparisonDirection;

// A tensor of `type` (an integer type) with every element `bits` (wrapped to the width).
Value* intSplat(Builder& b, const Type& type, uint64_t bits) {
  Literal one(Type::scalar(type.dtype()));
  one.setInt(0, static_cast<int64_t>(bits));
  return b.constant(Literal::splat(type, one.storage()));
}

// The kernel's complex square, ((x - y)(x + y), 2·(x·y)), in f64 as the kernel evaluates
// it (complex<f32> included, rounded once at the end): (x - y)(x + y) rather than x² - y²,
// which cancels; exactly +0 where finite |x| = |y| (the product would give -0, or NaN
// where x + y overflows), while inf - inf stays NaN.
std::vector<Value*> complexSquare(Builder& b, Value* z) {
  DType part = complexPart(z->type().dtype());
  Value* x = b.unary(ops::Real, z);
  Value* y = b.unary(ops::Imag, z);
  if (part != DType::F64) {
    x = b.convert(x, DType::F64);
    y = b.convert(y, DType::F64);
  }
  Value* product =
      b.binary(ops::Multiply, b.binary(ops::Subtract, x, y), b.binary(ops::Add, x, y));
  Value* cancels = b.binary(ops::And,
                            b.compare(b.unary(ops::Abs, x), b.unary(ops::Abs, y), D::EQ),
                            b.unary(ops::IsFinite, x));
  Value* re = b.select(cancels, b.splat(x->type(), 0.0), product);
  Value* im = b.binary(ops::Multiply, b.splat(x->type(), 2.0), b.binary(ops::Multiply, x, y));
  if (part != DType::F64) {
    re = b.convert(re, part);
    im = b.convert(im, part);
  }
  return {b.binary(ops::Complex, re, im)};
}

// The high half of the 128-bit product of two u64 tensors, schoolbook from 32-bit halves
// as the kernel computes it: every partial product fits in 64 bits, and the middle column
// (the high half of lo·lo plus the low halves of the cross products) carries into the top.
Value* mulhiUnsigned64(Builder& b, Value* x, Value* y) {
  const Type& t = x->type();
  Value* mask = intSplat(b, t, 0xffffffffu);
  Value* shift = intSplat(b, t, 32);
  auto lo = [&](Value* v) { return b.binary(ops::And, v, mask); };
  auto hi = [&](Value* v) { return b.binary(ops::ShiftRightLogical, v, shift); };
  auto mul = [&](Value* p, Value* q) { return b.binary(ops::Multiply, p, q); };
  auto add = [&](Value* p, Value* q) { return b.binary(ops::Add, p, q); };
  Value* lolo = mul(lo(x), lo(y));
  Value* lohi = mul(lo(x), hi(y));
  Value* hilo = mul(hi(x), lo(y));
  Value* hihi = mul(hi(x), hi(y));
  Value* mid = add(add(hi(lolo), lo(lohi)), lo(hilo));
  return add(add(add(hihi, hi(lohi)), hi(hilo)), hi(mid));
}

// Signed 64-bit mulhi: the unsigned product of the same bits, less y where x < 0 and less
// x where y < 0 (x's bits read unsigned are x + 2⁶⁴ there), in wrapping u64 arithmetic.
Value* mulhiSigned64(Builder& b, Value* x, Value* y) {
  Value* ux = b.bitcastConvert(x, DType::U64);
  Value* uy = b.bitcastConvert(y, DType::U64);
  Value* zero = intSplat(b, ux->type(), 0);
  Value* signedZero = intSplat(b, x->type(), 0);
  Value* hi = mulhiUnsigned64(b, ux, uy);
  hi = b.binary(ops::Subtract, hi, b.select(b.compare(x, signedZero, D::LT), uy, zero));
  hi = b.binary(ops::Subtract, hi, b.select(b.compare(y, signedZero, D::LT), ux, zero));
  return b.bitcastConvert(hi, x->type().dtype());
}

}  // namespace

std::vector<Value*> decomposeSquare(Builder& b, const Op& op) {
  Value* x = op.operand(0);
  if (isComplex(x->type().dtype())) return complexSquare(b, x);
  // Integers wrap as the kernel's product does; floats: one correctly rounded product.
  return {b.binary(ops::Multiply, x, x)};
}

// Up to 32 bits: the product in 64 bits, shifted right by the width. 64 bits: from the
// 32-bit halves (there are no 128-bit integers to widen into).
std::vector<Value*> decomposeMulhi(Builder& b, const Op& op) {
  Value* x = op.operand(0);
  Value* y = op.operand(1);
  DType t = x->type().dtype();
  int w = bitWidth(t);
  if (w == 64) return {isSignedInt(t) ? mulhiSigned64(b, x, y) : mulhiUnsigned64(b, x, y)};
  DType wide = isSignedInt(t) ? DType::I64 : DType::U64;
  Value* product = b.binary(ops::Multiply, b.convert(x, wide), b.convert(y, wide));
  Value* shift = b.splat(product->type(), w);
  Value* high = b.binary(isSignedInt(t) ? ops::ShiftRightArithmetic : ops::ShiftRightLogical,
                         product, shift);
  return {b.convert(high, t)};
}

// next_after on the bits, as the kernel does: NaN if either is NaN; y when x == y (so ±0
// pairs give y); ±smallest subnormal (sign of y) from ±0; else one step toward zero when
// the signs differ or |x| > |y|, away from it otherwise.
std::vector<Value*> decomposeNextAfter(Builder& b, const Op& op) {
  Value* x = op.operand(0);
  Value* y = op.operand(1);
  const Type& t = x->type();
  int w = bitWidth(t.dtype());
  std::optional<DType> bitsType;
  for (DType u : {DType::U8, DType::U16, DType::U32, DType::U64})
    if (bitWidth(u) == w) bitsType = u;
  if (!bitsType) return {};  // f4/f6 formats: no unsigned type of their width to bitcast to
  Type ut = t.withDType(*bitsType);
  uint64_t sign = uint64_t{1} << (w - 1);
  Value* xb = b.bitcastConvert(x, *bitsType);
  Value* yb = b.bitcastConvert(y, *bitsType);
  Value* signMask = intSplat(b, ut, sign);
  Value* xAbs = b.binary(ops::And, xb, intSplat(b, ut, ~sign));
  Value* yAbs = b.binary(ops::And, yb, intSplat(b, ut, ~sign));
  Value* one = intSplat(b, ut, 1);
  Value* fromZero = b.binary(ops::Or, b.binary(ops::And, yb, signMask), one);
  Value* signsDiffer = b.compare(b.binary(ops::And, xb, signMask), b.binary(ops::And, yb, signMask), D::NE);
  Value* towardZero = b.binary(ops::Or, signsDiffer, b.compare(xAbs, yAbs, D::GT));
  Value* step = b.select(towardZero, b.binary(ops::Subtract, xb, one), b.binary(ops::Add, xb, one));
  Value* bits = b.select(b.compare(xAbs, intSplat(b, ut, 0), D::EQ), fromZero, step);
  Value* r = b.select(b.compare(x, y, D::EQ), y, b.bitcastConvert(bits, t.dtype()));
  Value* nan = b.binary(ops::Or, b.compare(x, x, D::NE), b.compare(y, y, D::NE));
  return {b.select(nan, b.splat(t, std::numeric_limits<double>::quiet_NaN()), r)};
}

// Sorts each row descending (floats by total order, so NaN ranks as the kernel ranks it),
// stable so that equal values keep their order, with the positions alongside; then the
// first k of both.
std::vector<Value*> decomposeTopK(Builder& b, const Op& op) {
  Value* x = op.operand(0);
  const Type& t = x->type();
  if (isComplex(t.dtype())) return {};  // complex has no order: the kernel refuses it too
  int64_t last = t.rank() - 1;
  Value* positions = b.iota(t.withDType(DType::I32), last);
  std::optional<ComparisonType> order;
  if (isFloat(t.dtype())) order = ComparisonType::TotalOrder;
  std::vector<Value*> sorted =
      b.sort({x, positions}, last, true, [&](Builder& c, const std::vector<Value*>& a) {
        return std::vector<Value*>{c.compare(a[0], a[1], ComparisonDirection::GT, order)};
      });
  Dims start(static_cast<size_t>(t.rank()), 0), limit = t.shape(), strides(static_cast<size_t>(t.rank()), 1);
  limit.back() = op.attr("k").asInt();
  return {b.slice(sorted[0], start, limit, strides), b.slice(sorted[1], start, limit, strides)};
}

// chlo.scan as the kernel runs it: a while loop over the scan dimension (backwards when
// is_reverse) whose carries are the step, the outputs being filled and the scan's own
// carries; each step slices the inputs at the step, inlines the body, and writes its
// outputs back at the step.
std::vector<Value*> decomposeScan(Builder& b, const Op& op) {
  const size_t numInputs = static_cast<size_t>(op.attr("operandSegmentSizes").asInts()[0]);
  const size_t numInits = op.numOperands() - numInputs;
  const size_t numOutputs = op.numResults() - numInits;
  const int64_t dim = op.attr("dimension").asInt();
  Attribute reverseAttr = op.attr("is_reverse");
  const bool reverse = reverseAttr && reverseAttr.asBool();
  if (numInputs == 0) return {};
  const int64_t length = op.operand(0)->type().dim(dim);
  Type index = Type::scalar(DType::I64);
  std::vector<Value*> carries = {b.splat(index, 0)};
  for (size_t i = 0; i < numOutputs; ++i) carries.push_back(b.constant(Literal(op.result(i)->type())));
  for (size_t j = 0; j < numInits; ++j) carries.push_back(op.operand(numInputs + j));
  std::vector<Value*> done = b.while_(
      carries,
      [&](Builder& c, const std::vector<Value*>& a) {
        return std::vector<Value*>{c.compare(a[0], c.splat(index, static_cast<double>(length)), ComparisonDirection::LT)};
      },
      [&](Builder& c, const std::vector<Value*>& a) {
        Value* t = reverse ? c.binary(ops::Subtract, c.splat(index, static_cast<double>(length - 1)), a[0]) : a[0];
        // Start indices: t along the scan dimension, 0 elsewhere.
        auto startsFor = [&](const Type& type) {
          std::vector<Value*> starts;
          for (int64_t d = 0; d < type.rank(); ++d) starts.push_back(d == dim ? t : c.splat(index, 0));
          return starts;
        };
        std::vector<Value*> args;
        for (size_t i = 0; i < numInputs; ++i) {
          const Type& type = op.operand(i)->type();
          Dims sizes = type.shape();
          sizes[static_cast<size_t>(dim)] = 1;
          Shape element = type.shape();
          element.erase(element.begin() + dim);
          args.push_back(c.reshape(c.dynamicSlice(op.operand(i), startsFor(type), sizes), element));
        }
        for (size_t j = 0; j < numInits; ++j) args.push_back(a[1 + numOutputs + j]);
        std::vector<Value*> r = c.inlineRegion(op.region(0), args);
        std::vector<Value*> next = {c.binary(ops::Add, a[0], c.splat(index, 1))};
        for (size_t i = 0; i < numOutputs; ++i) {
          const Type& type = op.result(i)->type();
          Shape slot = type.shape();
          slot[static_cast<size_t>(dim)] = 1;
          next.push_back(c.dynamicUpdateSlice(a[1 + i], c.reshape(r[i], slot), startsFor(type)));
        }
        for (size_t j = 0; j < numInits; ++j) next.push_back(r[numOutputs + j]);
        return next;
      });
  return std::vector<Value*>(done.begin() + 1, done.end());
}

namespace {

// The position of `d` in `dims`, or -1.
int64_t positionOf(const Dims& dims, int64_t d) {
  auto it = std::find(dims.begin(), dims.end(), d);
  return it == dims.end() ? -1 : static_cast<int64_t>(it - dims.begin());
}

// `dims` shifted past a new leading dimension, which leads them `withLeading`.
Dims afterLeading(const Dims& dims, bool withLeading) {
  Dims out;
  if (withLeading) out.push_back(0);
  for (int64_t d : dims) out.push_back(d + 1);
  return out;
}

// The group of each coordinate 0..size-1 along the ragged dimension, as an i64 vector:
// group g covers [start_g, start_g + size_g), start_g the sum of the sizes before it (a
// group of negative size covers nothing); where groups overlap the later one wins, and
// -1 past all of them, as the kernel assigns them.
Value* groupOfCoordinate(Builder& b, Value* groupSizes, int64_t size) {
  const int64_t numGroups = groupSizes->type().dim(0);
  Type index = Type::scalar(DType::I64);
  Value* sizes = b.convert(groupSizes, DType::I64);
  Window prefix;  // inclusive prefix sums: a window of all groups, padded low by all but one
  prefix.dimensions = {numGroups};
  prefix.padding = {{numGroups - 1, 0}};
  Value* ends = b.reduceWindow({sizes}, {b.splat(index, 0)}, prefix,
                               [](Builder& c, const std::vector<Value*>& a) {
                                 return std::vector<Value*>{c.binary(ops::Add, a[0], a[1])};
                               })[0];
  Value* starts = b.binary(ops::Subtract, ends, sizes);
  Type grid = Type::tensor(DType::I64, {size, numGroups});
  Value* coordinate = b.iota(grid, 0);
  Value* inGroup = b.binary(
      ops::And,
      b.compare(coordinate, b.broadcastInDim(starts, grid.shape(), {1}), ComparisonDirection::GE),
      b.compare(coordinate, b.broadcastInDim(ends, grid.shape(), {1}), ComparisonDirection::LT));
  Value* candidates = b.select(inGroup, b.iota(grid, 1), b.splat(grid, -1));
  return b.reduce({candidates}, {b.splat(index, -1)}, {1},
                  [](Builder& c, const std::vector<Value*>& a) {
                    return std::vector<Value*>{c.binary(ops::Maximum, a[0], a[1])};
                  })[0];
}

// `mask` (i1, `shape`) selecting `x` or zeros of its type.
Value* keepWhere(Builder& b, Value* mask, Value* x) {
  return b.select(mask, x, b.splat(x->type(), 0));
}

}  // namespace

// chlo.ragged_dot as dense dot_generals, masked. Every sum the kernel makes starts from
// +0 and so is never -0, which makes adding zeros for the terms it skips exact: results
// agree bit for bit. Ragged in a free lhs dimension: one dot_general with the rhs group
// dimension as a free dimension computes every row against every group (G times the
// kernel's work), each row keeps its own group's column and a sum over the group
// dimension drops the others. Ragged in a contracting dimension: both operands gain a
// leading group dimension (a batch dimension of the dot) zeroed outside the group, so
// each group sums only its own terms and the result leads with the groups. Ragged in a
// batch dimension: a plain dot_general with the batches past all groups zeroed.
std::vector<Value*> decomposeRaggedDot(Builder& b, const Op& op) {
  Value* lhs = op.operand(0);
  Value* rhs = op.operand(1);
  Value* groupSizes = op.operand(2);
  if (groupSizes->type().rank() != 1) return {};  // the kernel takes rank 1 only too
  RaggedDotDims rd = RaggedDotDims::fromAttr(op.attr("ragged_dot_dimension_numbers"));
  const DotDims& d = rd.dot;
  const Type& resultType = op.result(0)->type();
  const DType out = resultType.dtype();
  const int64_t ragged = rd.lhsRagged.at(0);
  const Type& lt = lhs->type();
  const Type& rt = rhs->type();
  Value* groupOf = groupOfCoordinate(b, groupSizes, lt.dim(ragged));
  const int64_t numBatch = static_cast<int64_t>(d.lhsBatch.size());
  using D = ComparisonDirection;

  if (int64_t j = positionOf(d.lhsBatch, ragged); j >= 0) {
    Value* dot = b.dotGeneral(lhs, rhs, d, out);
    Value* inAny = b.compare(groupOf, b.splat(groupOf->type(), 0), D::GE);
    return {keepWhere(b, b.broadcastInDim(inAny, resultType.shape(), {j}), dot)};
  }
  if (int64_t j = positionOf(d.lhsContracting, ragged); j >= 0) {
    const int64_t numGroups = groupSizes->type().dim(0);
    Type grid = Type::tensor(DType::I64, {numGroups, lt.dim(ragged)});
    Value* member =
        b.compare(b.broadcastInDim(groupOf, grid.shape(), {1}), b.iota(grid, 0), D::EQ);
    // Each operand with a leading group dimension, zero outside the group's terms.
    auto perGroup = [&](Value* x, int64_t raggedDim) {
      const Type& t = x->type();
      Shape shape = t.shape();
      shape.insert(shape.begin(), numGroups);
      Dims identity;
      for (int64_t k = 0; k < t.rank(); ++k) identity.push_back(k + 1);
      return keepWhere(b, b.broadcastInDim(member, shape, {0, raggedDim + 1}),
                       b.broadcastInDim(x, shape, identity));
    };
    DotDims grouped;
    grouped.lhsBatch = afterLeading(d.lhsBatch, true);
    grouped.rhsBatch = afterLeading(d.rhsBatch, true);
    grouped.lhsContracting = afterLeading(d.lhsContracting, false);
    grouped.rhsContracting = afterLeading(d.rhsContracting, false);
    return {b.dotGeneral(perGroup(lhs, ragged),
                         perGroup(rhs, d.rhsContracting[static_cast<size_t>(j)]), grouped, out)};
  }
  // Ragged in a free lhs dimension.
  const int64_t group = rd.rhsGroup.at(0);
  Dims lhsFree = d.lhsFree(lt.rank());
  Dims rhsFree = d.rhsFree(rt.rank());
  Value* dot = b.dotGeneral(lhs, rhs, d, out);
  const Shape& full = dot->type().shape();
  const int64_t rowDim = numBatch + positionOf(lhsFree, ragged);
  const int64_t groupDim =
      numBatch + static_cast<int64_t>(lhsFree.size()) + positionOf(rhsFree, group);
  Value* own = b.compare(b.broadcastInDim(groupOf, full, {rowDim}),
                         b.iota(Type::tensor(DType::I64, full), groupDim), D::EQ);
  Value* zero = b.splat(Type::scalar(out), 0);
  return b.reduce({keepWhere(b, own, dot)}, {zero}, {groupDim},
                  [](Builder& c, const std::vector<Value*>& a) {
                    return std::vector<Value*>{c.binary(ops::Add, a[0], a[1])};
                  });
}

}  // namespace kiln
