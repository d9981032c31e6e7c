// The executable decompositions of the structural and integer CHLO ops (the `decompose`
// of their registry rows). Each builds exactly the computation the interpreter's kernel
// does, so lowering keeps results bit for bit; where that cannot hold (complex square,
// 64-bit mulhi) it declines. The math functions, which are accurate within stated ULP
// bounds rather than bit for bit, are in chlo_math_decompositions.cc.
#include "ir/chlo_decompositions.h"

#include <limits>

#include "ir/builder.h"

namespace kiln {

std::vector<Value*> decomposeSquare(Builder& b, const Op& op) {
  Value* x = op.operand(0);
  if (isComplex(x->type().dtype())) return {};  // kept: the kernel's accurate complex square
  // Integers wrap as the kernel's product does; floats: one correctly rounded product.
  return {b.binary(OpCode::Multiply, x, x)};
}

std::vector<Value*> decomposeMulhi(Builder& b, const Op& op) {
  Value* x = op.operand(0);
  DType t = x->type().dtype();
  int w = bitWidth(t);
  if (w > 32) return {};  // no 128-bit integers to widen into
  DType wide = isSignedInt(t) ? DType::I64 : DType::U64;
  Value* product = b.binary(OpCode::Multiply, b.convert(x, wide), b.convert(op.operand(1), wide));
  Value* shift = b.splat(product->type(), w);
  Value* high = b.binary(isSignedInt(t) ? OpCode::ShiftRightArithmetic : OpCode::ShiftRightLogical,
                         product, shift);
  return {b.convert(high, t)};
}

namespace {

// A tensor of `type` (an integer type) with every element `bits` (wrapped to the width).
Value* intSplat(Builder& b, const Type& type, uint64_t bits) {
  Literal one(Type::scalar(type.dtype()));
  one.setInt(0, static_cast<int64_t>(bits));
  return b.constant(Literal::splat(type, one.storage()));
}

}  // namespace

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
  using D = ComparisonDirection;
  uint64_t sign = uint64_t{1} << (w - 1);
  Value* xb = b.bitcastConvert(x, *bitsType);
  Value* yb = b.bitcastConvert(y, *bitsType);
  Value* signMask = intSplat(b, ut, sign);
  Value* xAbs = b.binary(OpCode::And, xb, intSplat(b, ut, ~sign));
  Value* yAbs = b.binary(OpCode::And, yb, intSplat(b, ut, ~sign));
  Value* one = intSplat(b, ut, 1);
  Value* fromZero = b.binary(OpCode::Or, b.binary(OpCode::And, yb, signMask), one);
  Value* signsDiffer = b.compare(b.binary(OpCode::And, xb, signMask), b.binary(OpCode::And, yb, signMask), D::NE);
  Value* towardZero = b.binary(OpCode::Or, signsDiffer, b.compare(xAbs, yAbs, D::GT));
  Value* step = b.select(towardZero, b.binary(OpCode::Subtract, xb, one), b.binary(OpCode::Add, xb, one));
  Value* bits = b.select(b.compare(xAbs, intSplat(b, ut, 0), D::EQ), fromZero, step);
  Value* r = b.select(b.compare(x, y, D::EQ), y, b.bitcastConvert(bits, t.dtype()));
  Value* nan = b.binary(OpCode::Or, b.compare(x, x, D::NE), b.compare(y, y, D::NE));
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
        Value* t = reverse ? c.binary(OpCode::Subtract, c.splat(index, static_cast<double>(length - 1)), a[0]) : a[0];
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
        std::vector<Value*> next = {c.binary(OpCode::Add, a[0], c.splat(index, 1))};
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

}  // namespace kiln
