// Simplification rules for elementwise ops: arithmetic and bitwise identities,
// involutions and idempotent functions, comparisons and selects, and conversions.
//
// Every rule is exact: the rewritten program computes the same bits for every input,
// including NaN, ±inf, -0.0 and wrapping integer overflow, under the spec's semantics
// (../shared/reference/stablehlo-spec.md) as the reference interpreter implements them.
// The comment on each rule says why, and which types it leaves alone because it would
// not be exact there. "Integers" below means signed and unsigned integers; booleans are
// named where a rule also holds for them. Complex numbers are left alone unless a rule
// says otherwise.
#include <string>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "passes/simplify_rules.h"

namespace kiln::passes::simplify {
namespace {

DType dtypeOf(const Value* v) { return v->type().dtype(); }
bool isTensor(const Value* v) { return v->type().isTensor(); }

// For a binary op: the operand that is not a splat constant, and the splat, trying the
// rhs as the constant first and the lhs too when the op is commutative.
struct SplatSide {
  Value* other;     // the remaining operand
  Value* constant;  // the splat operand
  Literal element;  // its element
};
std::optional<SplatSide> splatSide(const Op& op) {
  if (auto e = splatOf(op.operand(1))) return SplatSide{op.operand(0), op.operand(1), std::move(*e)};
  if (op.info().has(kCommutative))
    if (auto e = splatOf(op.operand(0))) return SplatSide{op.operand(1), op.operand(0), std::move(*e)};
  return std::nullopt;
}

Value* zerosLike(Rewriter& rw, const Type& type) { return rw.splat(type, scalarInt(type.dtype(), 0)); }

// ---- add, subtract ----------------------------------------------------------------

// x + (-0.0) → x for floats: IEEE addition of -0 returns x for every x (+0 + -0 = +0,
// -0 + -0 = -0, NaN stays NaN). x + (+0.0) is NOT applied: -0 + +0 = +0. Complex: both
// parts -0.0 (the parts add independently). Integers and booleans (OR): x + 0 → x.
bool addZero(Op& op, Rewriter& rw) {
  auto s = splatSide(op);
  if (!s) return false;
  if (!isReducerIdentity(ops::Add, s->element)) return false;
  return rw.replaceIfSameType(s->other);
}

// x + negate(y) → x - y, integers only: both wrap to the same two's-complement value.
// Not for floats: when y is NaN, negate flips its sign bit and the sum returns that
// NaN, while x - y returns y's NaN unchanged (the results differ in the NaN's sign).
bool addNegate(Op& op, Rewriter& rw) {
  if (!isInteger(dtypeOf(op.result()))) return false;
  for (int side = 0; side < 2; ++side) {
    Op* neg = producer(op.operand(1 - side), ops::Negate);
    if (!neg) continue;
    rw.replace(rw.createValue(ops::Subtract, {op.operand(side), neg->operand(0)}, op.result()->type(), {},
                              {neg}));
    return true;
  }
  return false;
}

// x - (+0.0) → x for floats: x - +0 is x + -0 (exact, see addZero); x - (-0.0) is NOT
// (-0 - -0 = +0). Integers and booleans (subtract is XOR for them): x - 0 → x.
bool subtractZero(Op& op, Rewriter& rw) {
  auto e = splatOf(op.operand(1));
  if (!e) return false;
  DType t = dtypeOf(op.result());
  bool identity = isFloat(t) ? isPositiveZero(*e) : isIntOrBool(t) && isIntValue(*e, 0);
  if (!identity) return false;
  return rw.replaceIfSameType(op.operand(0));
}

// x - x → 0 for integers and booleans. Not for floats: inf - inf and NaN - NaN are NaN.
bool subtractSelf(Op& op, Rewriter& rw) {
  if (op.operand(0) != op.operand(1) || !isIntOrBool(dtypeOf(op.result()))) return false;
  rw.replace(zerosLike(rw, op.result()->type()));
  return true;
}

// 0 - x → negate(x) for integers (wrapping: 0 - MIN = MIN = negate(MIN); unsigned
// negation is 0 - x by the spec). Not for floats: 0 - (+0) = +0 but negate(+0) = -0.
bool zeroSubtract(Op& op, Rewriter& rw) {
  if (!isInteger(dtypeOf(op.result()))) return false;
  auto e = splatOf(op.operand(0));
  if (!e || !isIntValue(*e, 0)) return false;
  rw.replace(rw.createValue(ops::Negate, {op.operand(1)}, op.result()->type()));
  return true;
}

// ---- multiply, divide, power --------------------------------------------------------

// x * 1 → x for floats (IEEE: exact, NaN and -0.0 kept), integers and booleans (AND
// true). Not for complex: (a + bi)(1 + 0i) computes a - b*0, which is NaN for b = inf
// and +0 for a = b = -0.
bool multiplyOne(Op& op, Rewriter& rw) {
  auto s = splatSide(op);
  if (!s || isComplex(dtypeOf(s->other))) return false;
  bool one = isFloat(s->element.dtype()) ? isFloatValue(s->element, 1.0) : isIntValue(s->element, 1);
  if (!one) return false;
  return rw.replaceIfSameType(s->other);
}

// x * 0 → 0 for integers and booleans. Not for floats: inf * 0 is NaN, -1 * 0 is -0.
bool multiplyZero(Op& op, Rewriter& rw) {
  auto s = splatSide(op);
  if (!s || !isIntOrBool(dtypeOf(s->other)) || !isIntValue(s->element, 0)) return false;
  return rw.replaceIfSameType(s->constant);
}

// x * -1 → negate(x) for signed integers: both wrap (MIN * -1 = MIN = negate(MIN)).
// Not for floats: for NaN x the product keeps x's sign bit while negate flips it.
bool multiplyMinusOne(Op& op, Rewriter& rw) {
  auto s = splatSide(op);
  if (!s || !isSignedInt(dtypeOf(s->other)) || !isIntValue(s->element, -1)) return false;
  rw.replace(rw.createValue(ops::Negate, {s->other}, op.result()->type()));
  return true;
}

// x / 1 → x for floats (IEEE: exact) and integers (no overflow: MIN / 1 = MIN). Not for
// complex (the complex quotient mixes parts) nor booleans (division of booleans fails).
bool divideOne(Op& op, Rewriter& rw) {
  auto e = splatOf(op.operand(1));
  DType t = dtypeOf(op.result());
  if (!e || !(isFloat(t) ? isFloatValue(*e, 1.0) : isInteger(t) && isIntValue(*e, 1))) return false;
  return rw.replaceIfSameType(op.operand(0));
}

// power(x, 1) → x for integers (the product of one factor). Not for floats: pow(x, 1)
// equals x except that it returns NaN inputs with their sign bit cleared (pow(-NaN, 1)
// is +NaN in the C library), nor complex (exponentiation goes through exp and log).
bool powerOne(Op& op, Rewriter& rw) {
  auto e = splatOf(op.operand(1));
  if (!e || !isInteger(dtypeOf(op.result())) || !isIntValue(*e, 1)) return false;
  return rw.replaceIfSameType(op.operand(0));
}

// ---- maximum, minimum ---------------------------------------------------------------

// max(x, x) → x and min(x, x) → x for every type: the IEEE maximum of a value with
// itself is that value (NaN and -0.0 included).
bool extremumSelf(Op& op, Rewriter& rw) {
  if (op.operand(0) != op.operand(1)) return false;
  return rw.replaceIfSameType(op.operand(0));
}

// max(x, lowest) → x and min(x, highest) → x, where lowest is -inf for floats (IEEE
// maximum returns NaN for NaN and x for -inf < x; max(-inf, -inf) = -inf), the type's
// minimum for integers and false for booleans; highest likewise. Float formats without
// infinities have no such value and are left alone.
bool extremumIdentity(Op& op, Rewriter& rw) {
  auto s = splatSide(op);
  if (!s) return false;
  if (!isReducerIdentity(op.code(), s->element)) return false;
  return rw.replaceIfSameType(s->other);
}

// ---- and, or, xor, shifts ---------------------------------------------------------

// and(x, x) → x, or(x, x) → x: bitwise idempotence (integers and booleans).
bool bitwiseSelf(Op& op, Rewriter& rw) {
  if (op.operand(0) != op.operand(1)) return false;
  return rw.replaceIfSameType(op.operand(0));
}

// xor(x, x) → 0 for integers and booleans.
bool xorSelf(Op& op, Rewriter& rw) {
  if (op.operand(0) != op.operand(1)) return false;
  rw.replace(zerosLike(rw, op.result()->type()));
  return true;
}

// and(x, 0) → 0 and and(x, all ones) → x (booleans: false and true).
bool andConstant(Op& op, Rewriter& rw) {
  auto s = splatSide(op);
  if (!s) return false;
  if (isIntValue(s->element, 0)) return rw.replaceIfSameType(s->constant);
  if (isAllOnes(s->element)) return rw.replaceIfSameType(s->other);
  return false;
}

// or(x, 0) → x and or(x, all ones) → all ones (booleans: false and true).
bool orConstant(Op& op, Rewriter& rw) {
  auto s = splatSide(op);
  if (!s) return false;
  if (isIntValue(s->element, 0)) return rw.replaceIfSameType(s->other);
  if (isAllOnes(s->element)) return rw.replaceIfSameType(s->constant);
  return false;
}

// xor(x, 0) → x (booleans: false).
bool xorZero(Op& op, Rewriter& rw) {
  auto s = splatSide(op);
  if (!s || !isIntValue(s->element, 0)) return false;
  return rw.replaceIfSameType(s->other);
}

// shift_left / shift_right_logical / shift_right_arithmetic by 0 → x: a zero amount is
// below every bit width, so no bit moves.
bool shiftZero(Op& op, Rewriter& rw) {
  auto e = splatOf(op.operand(1));
  if (!e || !isIntValue(*e, 0)) return false;
  return rw.replaceIfSameType(op.operand(0));
}

// ---- unary ops ----------------------------------------------------------------------

// negate(negate(x)) → x: floats flip the sign bit twice (NaN payloads kept); integers
// wrap twice (negate(MIN) = MIN); booleans and complex are exact too.
// not(not(x)) → x: bitwise complement twice.
bool involution(Op& op, Rewriter& rw) {
  Op* inner = producer(op.operand(0), op.code());
  if (!inner) return false;
  return rw.replaceIfSameType(inner->operand(0));
}

// f(f(x)) → f(x) for floor, ceil, round_nearest_afz, round_nearest_even, sign and abs:
// their results are fixed points of the same function (integers from rounding, -1/0/1
// and NaN from sign, non-negative values from abs; abs(MIN) wraps to MIN and
// abs(MIN) = MIN again). Not for complex: sign(z) = z / |z| need not have modulus
// exactly 1, and complex abs changes the type anyway.
bool idempotent(Op& op, Rewriter& rw) {
  Op* inner = producer(op.operand(0), op.code());
  if (!inner || isComplex(dtypeOf(inner->operand(0))) || inner->result()->type() != op.result()->type())
    return false;
  return rw.replaceIfSameType(inner->result());
}

// abs(negate(x)) → abs(x): for floats abs clears the sign bit that negate flips (NaN
// included); for integers |−x| = |x| with wrapping (both MIN for MIN).
bool absNegate(Op& op, Rewriter& rw) {
  Op* neg = producer(op.operand(0), ops::Negate);
  if (!neg || isComplex(dtypeOf(neg->result()))) return false;
  rw.setOperands({neg->operand(0)}, {neg});
  return true;
}

// ---- compare, select ------------------------------------------------------------------

// compare(x, x) → constant for integers and booleans: EQ, LE, GE are true, NE, LT, GT
// false. Not for floats (NaN is unordered with itself) nor complex.
bool compareSelf(Op& op, Rewriter& rw) {
  if (op.operand(0) != op.operand(1) || !isIntOrBool(dtypeOf(op.operand(0)))) return false;
  using D = ComparisonDirection;
  D dir = comparisonDirectionOf(op.attr("comparison_direction"));
  bool value = dir == D::EQ || dir == D::LE || dir == D::GE;
  rw.replace(rw.splat(op.result()->type(), scalarInt(DType::I1, value ? 1 : 0)));
  return true;
}

// select(constant p, a, b) → a or b when every element of p is equal: exact selection.
bool selectConstant(Op& op, Rewriter& rw) {
  auto e = splatOf(op.operand(0));
  if (!e) return false;
  Value* chosen = e->boolAt(0) ? op.operand(1) : op.operand(2);
  if (chosen->type() != op.result()->type()) return false;
  return rw.replaceIfSameType(chosen);
}

// select(p, a, a) → a.
bool selectSame(Op& op, Rewriter& rw) {
  if (op.operand(1) != op.operand(2) || op.operand(1)->type() != op.result()->type()) return false;
  return rw.replaceIfSameType(op.operand(1));
}

// select(not(p), a, b) → select(p, b, a): not of a boolean is logical negation.
bool selectNot(Op& op, Rewriter& rw) {
  Op* notOp = producer(op.operand(0), ops::Not);
  if (!notOp || !isBool(dtypeOf(notOp->operand(0)))) return false;
  rw.setOperands({notOp->operand(0), op.operand(2), op.operand(1)}, {notOp});
  return true;
}

// ---- convert ----------------------------------------------------------------------

// convert to the operand's own type → the operand.
bool convertSameType(Op& op, Rewriter& rw) {
  if (op.operand(0)->type() != op.result()->type()) return false;
  return rw.replaceIfSameType(op.operand(0));
}

// The largest binary exponent of a finite value of a float format.
int maxExponent(const FloatFormat& f) {
  int top = (1 << f.exponentBits) - 1 - f.bias;
  return f.nonFinite == NonFinite::IEEE ? top - 1 : top;
}

// Whether converting every value of `from` to `to` is exact: the value (including -0.0,
// ±inf and NaN) survives, so converting it further gives what converting the original
// would. Conservative: only the IEEE formats bf16, f16, f32 and f64 count as wide
// targets, and complex types never take part.
bool isExactConversion(DType from, DType to) {
  if (from == to) return true;
  if (isBool(from)) return isIntOrBool(to) || isFloat(to);
  bool ieeeTarget = to == DType::BF16 || to == DType::F16 || to == DType::F32 || to == DType::F64;
  if (isSignedInt(from)) {
    if (isSignedInt(to)) return bitWidth(to) >= bitWidth(from);
    // Every integer of magnitude up to 2^(m+1) is exact in a format with m mantissa bits.
    if (ieeeTarget) return bitWidth(from) - 1 <= info(to).format.mantissaBits + 1;
    return false;  // to unsigned: negative values do not survive
  }
  if (isUnsignedInt(from)) {
    if (isUnsignedInt(to)) return bitWidth(to) >= bitWidth(from);
    if (isSignedInt(to)) return bitWidth(to) > bitWidth(from);
    if (ieeeTarget) return bitWidth(from) <= info(to).format.mantissaBits + 1;
    return false;
  }
  if (isFloat(from) && ieeeTarget) {
    const FloatFormat& a = info(from).format;
    const FloatFormat& b = info(to).format;
    // E8M0 has no zero and no subnormals: its smallest value is not 2^(1-bias-m).
    if (from == DType::F8E8M0FNU) return false;
    return b.mantissaBits >= a.mantissaBits && maxExponent(b) >= maxExponent(a) &&
           1 - b.bias - b.mantissaBits <= 1 - a.bias - a.mantissaBits;
  }
  return false;  // float to integer truncates; complex is left alone
}

// convert(convert(x : A) : B) : C → convert(x) : C (or x when C = A) when A → B is exact
// for every value of A (f16 → f32 → f64, i8 → i32 → i64, u8 → i16, i16 → f32): then B → C
// converts the very value A → C would. One more condition: conversion to an integer
// wraps from integers but saturates from floats (NaN to 0), so when C is an integer, A
// and B must both be floats or both not (i16 → f32 → i8 saturates 300 to 127, i16 → i8
// wraps it to 44). Lossy first steps (f32 → f16 → f32, i32 → i8 → i32) are left alone.
bool convertChain(Op& op, Rewriter& rw) {
  Op* inner = producer(op.operand(0), ops::Convert);
  if (!inner || !isTensor(inner->operand(0))) return false;
  Value* x = inner->operand(0);
  DType a = dtypeOf(x), b = dtypeOf(inner->result()), c = dtypeOf(op.result());
  if (isComplex(a) || isComplex(b) || isComplex(c) || !isExactConversion(a, b)) return false;
  if (isInteger(c) && isFloat(a) != isFloat(b)) return false;
  if (x->type() == op.result()->type()) {
    rw.replace(x);
  } else {
    rw.setOperands({x}, {inner});
  }
  return true;
}

}  // namespace

void addElementwiseRules(RuleTable& t) {
  namespace O = ops;
  t.add(O::Add, "add-zero", addZero);
  t.add(O::Add, "add-negate", addNegate);
  t.add(O::Subtract, "subtract-zero", subtractZero);
  t.add(O::Subtract, "subtract-self", subtractSelf);
  t.add(O::Subtract, "zero-subtract", zeroSubtract);
  t.add(O::Multiply, "multiply-one", multiplyOne);
  t.add(O::Multiply, "multiply-zero", multiplyZero);
  t.add(O::Multiply, "multiply-minus-one", multiplyMinusOne);
  t.add(O::Divide, "divide-one", divideOne);
  t.add(O::Power, "power-one", powerOne);
  t.add(O::Maximum, "extremum-self", extremumSelf);
  t.add(O::Minimum, "extremum-self", extremumSelf);
  t.add(O::Maximum, "maximum-lowest", extremumIdentity);
  t.add(O::Minimum, "minimum-highest", extremumIdentity);
  t.add(O::And, "bitwise-self", bitwiseSelf);
  t.add(O::Or, "bitwise-self", bitwiseSelf);
  t.add(O::Xor, "xor-self", xorSelf);
  t.add(O::And, "and-constant", andConstant);
  t.add(O::Or, "or-constant", orConstant);
  t.add(O::Xor, "xor-zero", xorZero);
  for (OpCode shift : {O::ShiftLeft, O::ShiftRightLogical, O::ShiftRightArithmetic})
    t.add(shift, "shift-zero", shiftZero);
  t.add(O::Negate, "negate-negate", involution);
  t.add(O::Not, "not-not", involution);
  for (OpCode f : {O::Floor, O::Ceil, O::RoundNearestAfz, O::RoundNearestEven, O::Sign, O::Abs})
    t.add(f, "idempotent", idempotent);
  t.add(O::Abs, "abs-negate", absNegate);
  t.add(O::Compare, "compare-self", compareSelf);
  t.add(O::Select, "select-constant", selectConstant);
  t.add(O::Select, "select-same", selectSame);
  t.add(O::Select, "select-not", selectNot);
  t.add(O::Convert, "convert-same-type", convertSameType);
  t.add(O::Convert, "convert-chain", convertChain);
}

}  // namespace kiln::passes::simplify
