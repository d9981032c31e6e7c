// The executable decompositions of the structural and integer CHLO ops (the `decompose`
// of their registry rows). Each builds exactly the computation the interpreter's kernel
// does, so lowering keeps results bit for bit (complex square in f64 as the kernel's,
// 64-bit mulhi from 32-bit halves). The math functions, which are accurate within stated
// bounds rather than bit for bit, are in chlo_math_decompositions.cc.
#include "ir/chlo_decompositions.h"

#include <limits>

#include "ir/builder.h"

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
  Value* x = b.unary(OpCode::Real, z);
  Value* y = b.unary(OpCode::Imag, z);
  if (part != DType::F64) {
    x = b.convert(x, DType::F64);
    y = b.convert(y, DType::F64);
  }
  Value* product =
      b.binary(OpCode::Multiply, b.binary(OpCode::Subtract, x, y), b.binary(OpCode::Add, x, y));
  Value* cancels = b.binary(OpCode::And,
                            b.compare(b.unary(OpCode::Abs, x), b.unary(OpCode::Abs, y), D::EQ),
                            b.unary(OpCode::IsFinite, x));
  Value* re = b.select(cancels, b.splat(x->type(), 0.0), product);
  Value* im = b.binary(OpCode::Multiply, b.splat(x->type(), 2.0), b.binary(OpCode::Multiply, x, y));
  if (part != DType::F64) {
    re = b.convert(re, part);
    im = b.convert(im, part);
  }
  return {b.binary(OpCode::Complex, re, im)};
}

// The high half of the 128-bit product of two u64 tensors, schoolbook from 32-bit halves
// as the kernel computes it: every partial product fits in 64 bits, and the middle column
// (the high half of lo·lo plus the low halves of the cross products) carries into the top.
Value* mulhiUnsigned64(Builder& b, Value* x, Value* y) {
  const Type& t = x->type();
  Value* mask = intSplat(b, t, 0xffffffffu);
  Value* shift = intSplat(b, t, 32);
  auto lo = [&](Value* v) { return b.binary(OpCode::And, v, mask); };
  auto hi = [&](Value* v) { return b.binary(OpCode::ShiftRightLogical, v, shift); };
  auto mul = [&](Value* p, Value* q) { return b.binary(OpCode::Multiply, p, q); };
  auto add = [&](Value* p, Value* q) { return b.binary(OpCode::Add, p, q); };
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
  hi = b.binary(OpCode::Subtract, hi, b.select(b.compare(x, signedZero, D::LT), uy, zero));
  hi = b.binary(OpCode::Subtract, hi, b.select(b.compare(y, signedZero, D::LT), ux, zero));
  return b.bitcastConvert(hi, x->type().dtype());
}

}  // namespace

std::vector<Value*> decomposeSquare(Builder& b, const Op& op) {
  Value* x = op.operand(0);
  if (isComplex(x->type().dtype())) return complexSquare(b, x);
  // Integers wrap as the kernel's product does; floats: one correctly rounded product.
  return {b.binary(OpCode::Multiply, x, x)};
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
  Value* product = b.binary(OpCode::Multiply, b.convert(x, wide), b.convert(y, wide));
  Value* shift = b.splat(product->type(), w);
  Value* high = b.binary(isSignedInt(t) ? OpCode::ShiftRightArithmetic : OpCode::ShiftRightLogical,
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
