// Inline-IR math (vector_math.h). Every step is a select, an exact fused multiply-add
// (llvm.fma: one rounding, the same on every machine) or a plain arithmetic op, with no
// fast-math flags (NaN and infinities must survive), so the whole function vectorizes
// and a scalar loop tail computes exactly what the vector body does.
#include "backends/cpu/vector_math.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

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

// sin, cos and tan of f32, computed in f64 and rounded once: x = k · π/2 + r with
// |r| ≤ π/4, then sin r and cos r by Taylor polynomials (degree 11 and 12: 2^-29 of the
// result at most), chosen and signed by k mod 4 (tan: their quotient). Below 2^19 the reduction is Cody and Waite's in
// three FMAs with π/2 split into three doubles; from 2^19 on (every f32 up to the
// largest), Payne and Hanek's: x = m · 2^s with m the 24-bit significand, and x · 2/π
// mod 4 is m times the 96 bits of 2/π that start at bit s - 1 (four words gathered from
// a table, shifted together), taken modulo 2^96: an exact integer product, so even the
// inputs closest to a multiple of π/2 keep every bit of their r.
llvm::Value* emitTrigF32(llvm::IRBuilder<>& b, llvm::Value* x, Trig f) {
  const bool cosine = f == Trig::Cos;
  llvm::Type* f64 = b.getDoubleTy();
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();
  auto d = [&](double v) { return llvm::ConstantFP::get(f64, v); };
  auto poly = [&](llvm::Value* z, std::initializer_list<double> c) {
    auto it = c.begin();
    llvm::Value* p = d(*it++);
    for (; it != c.end(); ++it) p = fma(b, p, z, d(*it));
    return p;
  };
  llvm::Value* bits = b.CreateAnd(b.CreateBitCast(x, i32), b.getInt32(0x7FFFFFFF));
  llvm::Value* a = b.CreateFPExt(b.CreateBitCast(bits, b.getFloatTy()), f64);
  // Below 2^19: k = round(a · 2/π) by the 1.5 · 2^52 trick, r by three FMAs.
  llvm::Value* magic = d(6755399441055744.0);
  llvm::Value* k = b.CreateFSub(fma(b, a, d(0.6366197723675814), magic), magic);
  llvm::Value* r = fma(b, b.CreateFNeg(k), d(1.5707963267948966), a);
  r = fma(b, b.CreateFNeg(k), d(6.123233995736766e-17), r);
  r = fma(b, b.CreateFNeg(k), d(-1.4973849048591698e-33), r);
  llvm::Value* finite = b.CreateICmpULT(bits, b.getInt32(0x7F800000));
  llvm::Value* nSmall = b.CreateTrunc(b.CreateFPToSI(select(b, finite, k, d(0.0)), i64), i32);
  // From 2^19: the window of 2/π's bits at bit s - 1, s = exponent - 150 (clamped so that
  // smaller inputs, whose result is not taken, read inside the table).
  static const uint32_t kTwoOverPi[] = {0x0,        0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599,
                                        0x3c439041, 0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0};
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::GlobalVariable* table = module.getGlobalVariable("kiln_two_over_pi", true);
  if (!table) {
    std::vector<llvm::Constant*> words;
    for (uint32_t w : kTwoOverPi) words.push_back(b.getInt32(w));
    auto* type = llvm::ArrayType::get(i32, words.size());
    table = new llvm::GlobalVariable(module, type, true, llvm::GlobalValue::PrivateLinkage,
                                     llvm::ConstantArray::get(type, words), "kiln_two_over_pi");
  }
  llvm::Value* exponent = b.CreateLShr(bits, 23);
  llvm::Value* position = b.CreateSub(exponent, b.getInt32(127 + 23 + 2 - 32));  // (s - 1) - 1 + 32
  position = select(b, b.CreateICmpSLT(position, b.getInt32(0)), b.getInt32(0), position);
  llvm::Value* q = b.CreateLShr(position, 5);
  llvm::Value* o = b.CreateAnd(position, b.getInt32(31));
  auto word = [&](int i) {
    llvm::Value* at = b.CreateZExt(b.CreateAdd(q, b.getInt32(i)), i64);
    return b.CreateLoad(i32, b.CreateInBoundsGEP(i32, table, at));
  };
  llvm::Value* u[4] = {word(0), word(1), word(2), word(3)};
  auto window = [&](int i) {
    return b.CreateZExt(b.CreateIntrinsic(llvm::Intrinsic::fshl, {i32}, {u[i], u[i + 1], o}), i64);
  };
  llvm::Value* m = b.CreateZExt(b.CreateOr(b.CreateAnd(bits, b.getInt32(0x7FFFFF)), b.getInt32(0x800000)), i64);
  // Q = (m · W mod 2^96) / 2^32: x · 2/π mod 4 in units of 2^-62.
  llvm::Value* product = b.CreateAdd(b.CreateShl(b.CreateMul(m, window(0)), 32), b.CreateMul(m, window(1)));
  product = b.CreateAdd(product, b.CreateLShr(b.CreateMul(m, window(2)), 32));
  llvm::Value* nLarge = b.CreateLShr(b.CreateAdd(product, b.getInt64(uint64_t{1} << 61)), 62);
  llvm::Value* fraction = b.CreateSub(product, b.CreateShl(nLarge, 62));  // in [-2^61, 2^61)
  llvm::Value* rLarge = b.CreateFMul(b.CreateSIToFP(fraction, f64), d(3.4061215800865545e-19));  // π/2 · 2^-62
  llvm::Value* large = b.CreateICmpUGE(bits, b.getInt32(0x49000000));  // 2^19
  r = select(b, large, rLarge, r);
  llvm::Value* n = select(b, large, b.CreateTrunc(nLarge, i32), nSmall);
  if (cosine) n = b.CreateAdd(n, b.getInt32(1));  // cos x = sin(x + π/2)
  llvm::Value* z = b.CreateFMul(r, r);
  llvm::Value* sinR = fma(b, b.CreateFMul(z, r),
                          poly(z, {-2.505210838544172e-08, 2.7557319223985893e-06, -0.0001984126984126984,
                                   0.008333333333333333, -0.16666666666666666}),
                          r);
  llvm::Value* cosR = poly(z, {2.08767569878681e-09, -2.755731922398589e-07, 2.48015873015873e-05,
                               -0.001388888888888889, 0.041666666666666664, -0.5, 1.0});
  llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(n, b.getInt32(1)), b.getInt32(0));
  llvm::Value* v;
  if (f == Trig::Tan) {
    // tan x = sin r / cos r in even quadrants, -cos r / sin r in odd ones.
    v = select(b, odd, b.CreateFDiv(b.CreateFNeg(cosR), sinR), b.CreateFDiv(sinR, cosR));
  } else {
    llvm::Value* negative = b.CreateICmpNE(b.CreateAnd(n, b.getInt32(2)), b.getInt32(0));
    v = select(b, odd, cosR, sinR);
    v = select(b, negative, b.CreateFNeg(v), v);
  }
  if (!cosine) v = select(b, b.CreateICmpSLT(b.CreateBitCast(x, i32), b.getInt32(0)), b.CreateFNeg(v), v);  // odd
  llvm::Value* result = b.CreateFPTrunc(v, b.getFloatTy());
  result = select(b, finite, result, f32(b, NAN));
  return select(b, isNaN(b, x), x, result);
}

}  // namespace kiln::cpu
