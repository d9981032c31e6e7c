// Inline-IR math (vector_math.h). Every step is a select or an FMA-free arithmetic op
// (no fast-math flags: NaN and infinities must survive), so the whole function
// vectorizes.
#include "backends/cpu/vector_math.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>

namespace kiln::cpu {
namespace {

llvm::Value* f32(llvm::IRBuilder<>& b, double v) { return llvm::ConstantFP::get(b.getFloatTy(), v); }

// 2^k for an integer-valued f32 k in [-127, 128], as a float built from its exponent bits
// (k + 127 in bits 23..30); callers keep k in range.
llvm::Value* pow2(llvm::IRBuilder<>& b, llvm::Value* k) {
  llvm::Value* biased = b.CreateFPToSI(b.CreateFAdd(k, f32(b, 127.0)), b.getInt32Ty());
  return b.CreateBitCast(b.CreateShl(biased, 23), b.getFloatTy());
}

}  // namespace

// e^x = 2^k · e^r with k = round(x / ln 2) and |r| ≤ ln 2 / 2, r computed in two steps
// (Cody and Waite: ln 2 split so that k · ln2_hi is exact), e^r by a degree-6 polynomial
// (the minimax coefficients of Cephes' expf), and 2^k applied as two factors so that
// results down to the smallest subnormal round once, as glibc's do.
llvm::Value* emitExpF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  // Beyond these e^x overflows to +inf or underflows to +0 (fcmp + select keeps NaN).
  llvm::Value* hiX = f32(b, 88.72283935546875);
  llvm::Value* loX = f32(b, -103.97208404541016);
  llvm::Value* clamped = b.CreateSelect(b.CreateFCmpOGT(x, hiX), hiX, x);
  clamped = b.CreateSelect(b.CreateFCmpOLT(clamped, loX), loX, clamped);
  // k = round(x · log2 e) by adding and subtracting 1.5 · 2^23 (no fptosi: NaN would be poison).
  llvm::Value* magic = f32(b, 12582912.0);
  llvm::Value* k = b.CreateFSub(b.CreateFAdd(b.CreateFMul(clamped, f32(b, 1.44269504088896341)), magic), magic);
  llvm::Value* r = b.CreateFSub(clamped, b.CreateFMul(k, f32(b, 0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(k, f32(b, -2.12194440e-4)));
  llvm::Value* p = f32(b, 1.9875691500e-4);
  for (double c : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1})
    p = b.CreateFAdd(b.CreateFMul(p, r), f32(b, c));
  llvm::Value* er = b.CreateFAdd(b.CreateFAdd(b.CreateFMul(b.CreateFMul(p, r), r), r), f32(b, 1.0));
  // 2^k as 2^(k - k/2) · 2^(k/2): each factor stays a normal float for k in [-150, 128].
  llvm::Value* half = b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, b.CreateFMul(k, f32(b, 0.5)));
  llvm::Value* result = b.CreateFMul(b.CreateFMul(er, pow2(b, b.CreateFSub(k, half))), pow2(b, half));
  result = b.CreateSelect(b.CreateFCmpOGT(x, hiX), f32(b, INFINITY), result);
  result = b.CreateSelect(b.CreateFCmpOLT(x, loX), f32(b, 0.0), result);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

// tanh: for |x| < 0.625 Cephes' odd polynomial x + x³·P(x²); above, 1 - 2 / (e^{2|x|} + 1)
// (which reaches 1 exactly from |x| ≈ 9); the sign copied back, so tanh(-0) = -0.
llvm::Value* emitTanhF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* p = f32(b, -5.70498872745e-3);
  for (double c : {2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1})
    p = b.CreateFAdd(b.CreateFMul(p, z), f32(b, c));
  llvm::Value* small = b.CreateFAdd(b.CreateFMul(b.CreateFMul(p, z), x), x);
  llvm::Value* e = emitExpF32(b, b.CreateFMul(a, f32(b, 2.0)));
  llvm::Value* large = b.CreateFSub(f32(b, 1.0), b.CreateFDiv(f32(b, 2.0), b.CreateFAdd(e, f32(b, 1.0))));
  // tanh is odd: the sign is x's (the polynomial alone would give tanh(-0) = +0).
  llvm::Value* result = b.CreateSelect(b.CreateFCmpOLT(a, f32(b, 0.625)), small, large);
  result = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, result, x);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

}  // namespace kiln::cpu
