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

}  // namespace kiln
