// Inline-IR math (vector_math.h). Every step is a select, an exact fused multiply-add
// (llvm.fma: one rounding, the same on every machine) or a plain arithmetic op, with no
// fast-math flags (NaN and infinities must survive), so the whole function vectorizes
// and a scalar loop tail computes exactly what the vector body does.
#include "backends/cpu/vector_math.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <initializer_list>
#include <utility>

namespace kiln::cpu {
namespace {

llvm::Value* f32(llvm::IRBuilder<>& b, double v) { return llvm::ConstantFP::get(b.getFloatTy(), v); }

llvm::Value* fma(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, llvm::Value* z) {
  return b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, z});
}

// c[0]·x^(n-1) + … + c[n-1] by Horner's rule, one FMA per coefficient.
llvm::Value* horner(llvm::IRBuilder<>& b, llvm::Value* x, std::initializer_list<double> c) {
  auto it = c.begin();
  llvm::Value* p = f32(b, *it++);
  for (; it != c.end(); ++it) p = fma(b, p, x, f32(b, *it));
  return p;
}

llvm::Value* select(llvm::IRBuilder<>& b, llvm::Value* when, llvm::Value* yes, llvm::Value* no) {
  return b.CreateSelect(when, yes, no);
}

llvm::Value* isNaN(llvm::IRBuilder<>& b, llvm::Value* x) { return b.CreateFCmpUNO(x, x); }

// The i32 value of an integer-valued f32 k; a k computed from a NaN input is NaN, and
// fptosi of NaN is poison, so it is replaced first (the caller replaces the result).
llvm::Value* intOf(llvm::IRBuilder<>& b, llvm::Value* k) {
  return b.CreateFPToSI(select(b, isNaN(b, k), f32(b, 0.0), k), b.getInt32Ty());
}

// 2^k as an f32 for an i32 k in [-126, 127].
llvm::Value* pow2(llvm::IRBuilder<>& b, llvm::Value* k) {
  return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, b.getInt32(127)), 23), b.getFloatTy());
}

// x = k · ln 2 + r with k = round(x · log2 e) and |r| ≤ ln 2 / 2 (Cody and Waite: ln 2
// split so that k · ln2_hi is exact); k as an integer-valued f32.
std::pair<llvm::Value*, llvm::Value*> reduceByLn2(llvm::IRBuilder<>& b, llvm::Value* x) {
  // Rounding by adding and subtracting 1.5 · 2^23 (no fptosi: NaN would be poison).
  llvm::Value* magic = f32(b, 12582912.0);
  llvm::Value* k = b.CreateFSub(fma(b, x, f32(b, 1.44269504088896341), magic), magic);
  llvm::Value* r = fma(b, k, f32(b, -0.693359375), x);
  return {k, fma(b, k, f32(b, 2.12194440e-4), r)};
}

// log(x) for a positive finite (normal or subnormal) x: x = m · 2^e with m in
// [sqrt(1/2), sqrt(2)), f = m - 1 (exact), log(1 + f) = f - f²/2 + f³·P(f) with P of
// degree 7 (scripts/fit_vector_math.py), and e · ln 2 added in two parts.
llvm::Value* logOfPositive(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* subnormal = b.CreateFCmpOLT(x, f32(b, 0x1p-126));
  llvm::Value* scaled = select(b, subnormal, b.CreateFMul(x, f32(b, 0x1p23)), x);
  // Subtracting sqrt(1/2)'s bits moves m's range to [sqrt(1/2), sqrt(2)) with e's carry.
  llvm::Value* offset = b.CreateSub(b.CreateBitCast(scaled, i32), b.getInt32(0x3F3504F3));
  llvm::Value* e = b.CreateSub(b.CreateAShr(offset, 23), select(b, subnormal, b.getInt32(23), b.getInt32(0)));
  llvm::Value* m = b.CreateBitCast(b.CreateAdd(b.CreateAnd(offset, b.getInt32(0x7FFFFF)), b.getInt32(0x3F3504F3)),
                                   b.getFloatTy());
  llvm::Value* f = b.CreateFSub(m, f32(b, 1.0));
  llvm::Value* ef = b.CreateSIToFP(e, b.getFloatTy());
  llvm::Value* f2 = b.CreateFMul(f, f);
  llvm::Value* p = horner(b, f, {-0.0763442963, 0.127615497, -0.131601945, 0.142017618, -0.166233569, 0.200012267,
                                 -0.250008225, 0.333333313});
  llvm::Value* tail = fma(b, b.CreateFMul(f2, f), p, b.CreateFMul(f2, f32(b, -0.5)));
  llvm::Value* low = fma(b, ef, f32(b, -2.12194440e-4), tail);
  return fma(b, ef, f32(b, 0.693359375), b.CreateFAdd(f, low));
}

}  // namespace

// e^x = 2^k · e^r (reduceByLn2), e^r = 1 + r + r²·P(r) with P of degree 5 (Cephes'
// expf coefficients). 2^k is added to e^r's exponent field, which is exact while the
// result is a normal float; results that end subnormal (k < -100) get 2^(k+64) there and
// one multiply by 2^-64, so they round once, as glibc's do.
llvm::Value* emitExpF32(llvm::IRBuilder<>& b, llvm::Value* x, bool nonPositive) {
  // At and beyond hiX e^x overflows to +inf, below loX it underflows to +0.
  llvm::Value* hiX = f32(b, 88.72283935546875);
  llvm::Value* loX = f32(b, -103.97208404541016);
  llvm::Value* clamped = nonPositive ? x : select(b, b.CreateFCmpOGT(x, hiX), hiX, x);
  clamped = select(b, b.CreateFCmpOLT(clamped, loX), loX, clamped);
  auto [k, r] = reduceByLn2(b, clamped);
  llvm::Value* p = horner(b, r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                                 1.6666665459e-1, 5.0000001201e-1});
  llvm::Value* er = b.CreateFAdd(fma(b, p, b.CreateFMul(r, r), r), f32(b, 1.0));
  llvm::Value* tiny = b.CreateFCmpOLT(k, f32(b, -100.0));
  llvm::Value* shift = b.CreateAdd(intOf(b, k), select(b, tiny, b.getInt32(64), b.getInt32(0)));
  llvm::Value* bits = b.CreateAdd(b.CreateBitCast(er, b.getInt32Ty()), b.CreateShl(shift, 23));
  llvm::Value* result =
      b.CreateFMul(b.CreateBitCast(bits, b.getFloatTy()), select(b, tiny, f32(b, 0x1p-64), f32(b, 1.0)));
  if (!nonPositive) result = select(b, b.CreateFCmpOGE(x, hiX), f32(b, INFINITY), result);
  result = select(b, b.CreateFCmpOLT(x, loX), f32(b, 0.0), result);
  return select(b, isNaN(b, x), x, result);
}

// tanh: for |x| < 0.625 Cephes' odd polynomial x + x³·P(x²); above, 1 - 2e/(1 + e) with
// e = e^{-2|x|} (never overflows; 1 exactly from |x| ≈ 9), where the subtraction from 1
// shrinks the quotient's rounding errors by at least 3; the sign copied back, so
// tanh(-0) = -0.
llvm::Value* emitTanhF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* p = horner(b, z, {-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1,
                                 -3.33332819422e-1});
  llvm::Value* small = fma(b, b.CreateFMul(p, z), x, x);
  llvm::Value* e = emitExpF32(b, b.CreateFMul(a, f32(b, -2.0)), /*nonPositive=*/true);
  llvm::Value* large = b.CreateFSub(f32(b, 1.0), b.CreateFDiv(b.CreateFAdd(e, e), b.CreateFAdd(f32(b, 1.0), e)));
  llvm::Value* result = select(b, b.CreateFCmpOLT(a, f32(b, 0.625)), small, large);
  result = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, result, x);
  return select(b, isNaN(b, x), x, result);
}

// logistic: 1 / (1 + e) for x ≥ 0 and e / (1 + e) below, with e = e^{-|x|}: the
// interpreter's two formulas, from one exponential and one division.
llvm::Value* emitLogisticF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* e = emitExpF32(b, b.CreateFNeg(a), /*nonPositive=*/true);
  llvm::Value* numerator = select(b, b.CreateFCmpOGE(x, f32(b, 0.0)), f32(b, 1.0), e);
  return b.CreateFDiv(numerator, b.CreateFAdd(f32(b, 1.0), e));
}

// log: logOfPositive, with log(±0) = -inf, log(x < 0) = NaN, log(inf) = inf.
llvm::Value* emitLogF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* result = logOfPositive(b, x);
  result = select(b, b.CreateFCmpOEQ(x, f32(b, INFINITY)), x, result);
  result = select(b, b.CreateFCmpOLT(x, f32(b, 0.0)), f32(b, NAN), result);
  result = select(b, b.CreateFCmpOEQ(x, f32(b, 0.0)), f32(b, -INFINITY), result);
  return select(b, isNaN(b, x), x, result);
}

// log1p: log(u) + c / u for u = 1 + x rounded and c = (1 + x) - u exactly (by Sterbenz,
// computed in the order that keeps it exact on each side of 1), so small x keep every bit.
llvm::Value* emitLog1pF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* one = f32(b, 1.0);
  llvm::Value* u = b.CreateFAdd(one, x);
  llvm::Value* c = select(b, b.CreateFCmpOGT(x, one), b.CreateFSub(one, b.CreateFSub(u, x)),
                          b.CreateFSub(x, b.CreateFSub(u, one)));
  llvm::Value* result = b.CreateFAdd(logOfPositive(b, u), b.CreateFDiv(c, u));
  result = select(b, b.CreateFCmpOEQ(x, f32(b, INFINITY)), x, result);
  result = select(b, b.CreateFCmpOLT(x, f32(b, -1.0)), f32(b, NAN), result);
  result = select(b, b.CreateFCmpOEQ(x, f32(b, -1.0)), f32(b, -INFINITY), result);
  // ±0 (and NaN) are their own log1p.
  return select(b, b.CreateFCmpUEQ(x, f32(b, 0.0)), x, result);
}

// expm1: e^x - 1 = 2^k · (e^r - 1) + (2^k - 1) as one FMA (reduceByLn2), e^r - 1 =
// r + r²/2 + r³·Q(r) with Q of degree 4 (scripts/fit_vector_math.py); for k ≥ 64 the
// scale is taken as 2 · 2^(k-1) so that 2^k stays finite. -1 below -17.5, where
// e^x < 2^-25 no longer shows; +inf from where e^x overflows.
llvm::Value* emitExpm1F32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* hiX = f32(b, 88.72283935546875);
  llvm::Value* loX = f32(b, -17.5);
  llvm::Value* clamped = select(b, b.CreateFCmpOGT(x, hiX), hiX, x);
  clamped = select(b, b.CreateFCmpOLT(clamped, loX), loX, clamped);
  auto [k, r] = reduceByLn2(b, clamped);
  llvm::Value* q = horner(b, r, {0.000198241265, 0.00139332446, 0.00833341945, 0.0416664816, 0.166666657});
  llvm::Value* em = fma(b, b.CreateFMul(r, r), fma(b, r, q, f32(b, 0.5)), r);
  llvm::Value* kInt = intOf(b, k);
  llvm::Value* big = b.CreateICmpSGE(kInt, b.getInt32(64));
  llvm::Value* t = pow2(b, b.CreateSub(kInt, select(b, big, b.getInt32(1), b.getInt32(0))));
  llvm::Value* minusOne = select(b, big, f32(b, -0.5), f32(b, -1.0));
  llvm::Value* result =
      b.CreateFMul(fma(b, t, em, b.CreateFAdd(t, minusOne)), select(b, big, f32(b, 2.0), f32(b, 1.0)));
  result = select(b, b.CreateFCmpOGE(x, hiX), f32(b, INFINITY), result);
  result = select(b, b.CreateFCmpOLT(x, loX), f32(b, -1.0), result);
  // ±0 (and NaN) are their own expm1.
  return select(b, b.CreateFCmpUEQ(x, f32(b, 0.0)), x, result);
}

}  // namespace kiln::cpu
