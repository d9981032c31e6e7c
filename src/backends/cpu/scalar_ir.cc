// Scalar arithmetic as LLVM IR (scalar_ir.h), op by op as the interpreter's kernels
// define it: integer edge cases as XLA does, IEEE maximum/minimum, saturating
// float-to-int conversion, the same libm functions, no fast-math flags.
#include "backends/cpu/scalar_ir.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <complex>

#include "backends/cpu/runtime_kernels.h"
#include "backends/cpu/vector_math.h"
#include "ir/attr_records.h"
#include "ir/float_format.h"
#include "ir/ops/stablehlo.h"
#include "kernels/complex_ops.h"

namespace kiln::cpu {

llvm::Type* ScalarIR::registerType(DType t) {
  if (isBool(t)) return b_.getInt1Ty();
  if (isComplex(t)) {
    llvm::Type* part = t == DType::C64 ? b_.getFloatTy() : b_.getDoubleTy();
    return llvm::StructType::get(part, part);
  }
  if (t == DType::F32 || isNarrowFloat(t)) return b_.getFloatTy();
  if (t == DType::F64) return b_.getDoubleTy();
  return b_.getIntNTy(static_cast<unsigned>(bitWidth(t)));
}
// Booleans are one byte in storage; f16 and bf16 their 16 bits.
llvm::Type* ScalarIR::storageType(DType t) {
  if (isBool(t) || (isInteger(t) && bitWidth(t) < 8)) return b_.getInt8Ty();
  if (isNarrowFloat(t)) return b_.getInt16Ty();
  return registerType(t);
}

// An f32 computed for an f16/bf16 value, rounded to nearest even in that format (kept
// in f32); NaN becomes the format's one quiet NaN, as the interpreter encodes it.
// (Written for scalars and for vectors alike: the lane folds of reductions call it on
// vectors of f32.)
llvm::Value* ScalarIR::roundToFormat(llvm::Value* x, DType t) {
  if (!isNarrowFloat(t)) return x;
  llvm::Type* f32 = x->getType();
  llvm::Type* i32 = f32->getWithNewType(b_.getInt32Ty());
  auto i32Const = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* rounded;
  if (t == DType::F16) {
    rounded = b_.CreateFPExt(b_.CreateFPTrunc(x, f32->getWithNewType(b_.getHalfTy())), f32);
  } else {
    llvm::Value* bits = b_.CreateBitCast(x, i32);
    llvm::Value* odd = b_.CreateAnd(b_.CreateLShr(bits, 16), i32Const(1));
    llvm::Value* up = b_.CreateAdd(bits, b_.CreateAdd(i32Const(0x7FFF), odd));
    rounded = b_.CreateBitCast(b_.CreateAnd(up, i32Const(0xFFFF0000u)), f32);
  }
  uint32_t nan = 0x7FC00000u;  // f16 0x7E00 and bf16 0x7FC0, both widened to f32
  llvm::Value* canonical = llvm::ConstantFP::get(f32, llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, nan)));
  return b_.CreateSelect(b_.CreateFCmpUNO(x, x), canonical, rounded);
}

llvm::Value* ScalarIR::roundResult(const Op& op, llvm::Value* x, DType t) {
  return op.info().has(kKeepsElements) ? x : roundToFormat(x, t);
}

llvm::Value* ScalarIR::constant(DType t, uint64_t bits) {
  if (isBool(t)) return b_.getInt1(bits != 0);
  llvm::Type* type = registerType(t);
  if (isNarrowFloat(t)) return llvm::ConstantFP::get(type, bitsToFloat(bits, t));  // exact in f32
  if (isFloat(t)) {
    unsigned width = static_cast<unsigned>(bitWidth(t));
    return llvm::ConstantFP::get(type, llvm::APFloat(type->getFltSemantics(), llvm::APInt(width, bits)));
  }
  return llvm::ConstantInt::get(type, bits);
}

llvm::Value* ScalarIR::constantOf(const Literal& lit, int64_t i) {
  DType t = lit.dtype();
  if (!isComplex(t)) return constant(t, lit.bitsAt(i));
  std::complex<double> z = lit.complexAt(i);  // exact: the parts of a complex<f32> widened
  llvm::Type* part = registerType(t)->getStructElementType(0);
  return complexOf(t, llvm::ConstantFP::get(part, z.real()), llvm::ConstantFP::get(part, z.imag()));
}

llvm::Value* ScalarIR::complexOf(DType t, llvm::Value* re, llvm::Value* im) {
  llvm::Value* z = llvm::UndefValue::get(registerType(t));
  return b_.CreateInsertValue(b_.CreateInsertValue(z, re, 0), im, 1);
}

llvm::Value* ScalarIR::convert(llvm::Value* x, DType from, DType to) {
  llvm::Type* type = registerType(to);
  if (from == to) return x;
  // As the interpreter: complex to complex by parts, real to complex with a zero
  // imaginary part, complex to real from the real part.
  if (isComplex(to)) {
    DType part = to == DType::C64 ? DType::F32 : DType::F64;
    if (isComplex(from)) {
      DType fromPart = from == DType::C64 ? DType::F32 : DType::F64;
      return complexOf(to, convert(re(x), fromPart, part), convert(im(x), fromPart, part));
    }
    return complexOf(to, convert(x, from, part), llvm::ConstantFP::get(type->getStructElementType(0), 0.0));
  }
  if (isComplex(from)) return convert(re(x), from == DType::C64 ? DType::F32 : DType::F64, to);
  if (isBool(to)) return isFloat(from) ? b_.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0))
                                       : b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
  bool fromSigned = isSignedInt(from);
  if (isFloat(to)) {
    if (isFloat(from)) return b_.CreateFPCast(x, type);
    return fromSigned ? b_.CreateSIToFP(x, type) : b_.CreateUIToFP(x, type);
  }
  if (isFloat(from)) {
    // Truncation toward zero, saturating, NaN to 0: exactly the .sat intrinsics.
    auto id = isSignedInt(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b_.CreateIntrinsic(id, {type, x->getType()}, {x});
  }
  return fromSigned ? b_.CreateSExtOrTrunc(x, type) : b_.CreateZExtOrTrunc(x, type);
}

llvm::Value* ScalarIR::compare(const Op& op, llvm::Value* a, llvm::Value* c) {
  DType t = op.operand(0)->type().dtype();
  if (isComplex(t)) return complexCompare(op, a, c);
  ComparisonDirection dir = comparisonDirectionOf(op.attr("comparison_direction"));
  using D = ComparisonDirection;
  using P = llvm::CmpInst::Predicate;
  if (isFloat(t) && comparisonTypeOf(op.attr("compare_type")) == ComparisonType::TotalOrder) {
    a = totalOrderKey(a);
    c = totalOrderKey(c);
    t = DType::I64;
  }
  if (isFloat(t)) {
    P p = dir == D::EQ ? P::FCMP_OEQ : dir == D::NE ? P::FCMP_UNE : dir == D::LT ? P::FCMP_OLT
        : dir == D::LE ? P::FCMP_OLE : dir == D::GT ? P::FCMP_OGT : P::FCMP_OGE;
    return b_.CreateFCmp(p, a, c);
  }
  bool s = isSignedInt(t);
  P p = dir == D::EQ ? P::ICMP_EQ : dir == D::NE ? P::ICMP_NE
      : dir == D::LT ? (s ? P::ICMP_SLT : P::ICMP_ULT) : dir == D::LE ? (s ? P::ICMP_SLE : P::ICMP_ULE)
      : dir == D::GT ? (s ? P::ICMP_SGT : P::ICMP_UGT) : (s ? P::ICMP_SGE : P::ICMP_UGE);
  return b_.CreateICmp(p, a, c);
}

// A signed integer that orders floats as IEEE totalOrder: negative ones flip their
// magnitude bits.
llvm::Value* ScalarIR::totalOrderKey(llvm::Value* x) {
  unsigned w = x->getType()->getPrimitiveSizeInBits();
  llvm::Value* bits = b_.CreateBitCast(x, b_.getIntNTy(w));
  llvm::Value* flip = b_.CreateAnd(b_.CreateAShr(bits, w - 1), llvm::ConstantInt::get(bits->getType(), llvm::APInt::getSignedMaxValue(w)));
  return b_.CreateSExt(b_.CreateXor(bits, flip), b_.getInt64Ty());
}

llvm::Value* ScalarIR::isNaN(llvm::Value* x) { return b_.CreateFCmpUNO(x, x); }

// maximum/minimum: IEEE for floats (NaN wins, the first one first; -0 < +0).
llvm::Value* ScalarIR::extremum(bool max, llvm::Value* a, llvm::Value* c, DType t) {
  if (isBool(t)) return max ? b_.CreateOr(a, c) : b_.CreateAnd(a, c);
  if (isInteger(t)) {
    bool s = isSignedInt(t);
    llvm::Value* less = s ? b_.CreateICmpSLT(a, c) : b_.CreateICmpULT(a, c);
    return max ? b_.CreateSelect(less, c, a) : b_.CreateSelect(less, a, c);
  }
  // (Scalars or vectors: reductions fold lanes of floats as vectors.)
  llvm::Type* bitsType = a->getType()->getWithNewType(b_.getIntNTy(a->getType()->getScalarSizeInBits()));
  llvm::Value* negA = b_.CreateICmpSLT(b_.CreateBitCast(a, bitsType), llvm::Constant::getNullValue(bitsType));
  llvm::Value* equal = b_.CreateFCmpOEQ(a, c);
  llvm::Value* tie = max ? b_.CreateSelect(negA, c, a) : b_.CreateSelect(negA, a, c);
  llvm::Value* pick = max ? b_.CreateSelect(b_.CreateFCmpOGT(a, c), a, c) : b_.CreateSelect(b_.CreateFCmpOLT(a, c), a, c);
  llvm::Value* ordered = b_.CreateSelect(equal, tie, pick);
  return b_.CreateSelect(isNaN(a), a, b_.CreateSelect(isNaN(c), c, ordered));
}

// A libm function of one or two arguments, declared as not touching memory (no errno)
// so that LLVM may move and vectorize the calls.
llvm::Value* ScalarIR::libm(const char* name, DType t, std::vector<llvm::Value*> args) {
  std::string symbol = std::string(name) + (t == DType::F64 ? "" : "f");
  llvm::Type* type = registerType(t);
  std::vector<llvm::Type*> params(args.size(), type);
  llvm::FunctionCallee callee = module_.getOrInsertFunction(symbol, llvm::FunctionType::get(type, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
  }
  return b_.CreateCall(callee, args);
}

// Square-and-multiply over every bit of the exponent (branch-free, so the loop over
// elements still vectorizes); negative exponents give 0 except for bases 1 and -1.
llvm::Value* ScalarIR::integerPower(llvm::Value* base, llvm::Value* exponent, bool isSigned) {
  llvm::Type* type = base->getType();
  unsigned width = type->getIntegerBitWidth();
  llvm::Value* one = llvm::ConstantInt::get(type, 1);
  llvm::Value* result = one;
  llvm::Value* square = base;
  for (unsigned k = 0; k < width; ++k) {
    llvm::Value* bit = b_.CreateTrunc(b_.CreateLShr(exponent, llvm::ConstantInt::get(type, k)), b_.getInt1Ty());
    result = b_.CreateSelect(bit, b_.CreateMul(result, square), result);
    square = b_.CreateMul(square, square);
  }
  if (!isSigned) return result;
  llvm::Value* minusOne = llvm::Constant::getAllOnesValue(type);
  llvm::Value* odd = b_.CreateTrunc(exponent, b_.getInt1Ty());
  llvm::Value* negative = b_.CreateSelect(b_.CreateICmpEQ(base, one), one,
                                          b_.CreateSelect(b_.CreateICmpEQ(base, minusOne),
                                                          b_.CreateSelect(odd, minusOne, one),
                                                          llvm::Constant::getNullValue(type)));
  return b_.CreateSelect(b_.CreateICmpSLT(exponent, llvm::Constant::getNullValue(type)), negative, result);
}

namespace {
llvm::Value* sinF32(llvm::IRBuilder<>& b, llvm::Value* x) { return emitTrigF32(b, x, Trig::Sin); }
llvm::Value* cosF32(llvm::IRBuilder<>& b, llvm::Value* x) { return emitTrigF32(b, x, Trig::Cos); }
llvm::Value* tanF32(llvm::IRBuilder<>& b, llvm::Value* x) { return emitTrigF32(b, x, Trig::Tan); }
}  // namespace

// e^x: inline vector math for f32 (and the narrow floats computed in it), libm for f64.
llvm::Value* ScalarIR::exp(DType t, llvm::Value* x, bool nonPositive) {
  if (t == DType::F64) return libm("exp", t, {x});
  return math(nonPositive ? "kiln_math_exp_nonpositive_f32" : "kiln_math_exp_f32", x,
              [nonPositive](llvm::IRBuilder<>& b, llvm::Value* v) { return emitExpF32(b, v, nonPositive); });
}

llvm::Value* ScalarIR::math(const char* name, llvm::Value* x,
                            const std::function<llvm::Value*(llvm::IRBuilder<>&, llvm::Value*)>& emit) {
  if (!x->getType()->isFloatTy()) return emit(b_, x);
  llvm::Function* f = module_.getFunction(name);
  if (!f) {
    auto* type = llvm::FunctionType::get(x->getType(), {x->getType()}, false);
    f = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, module_);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    llvm::IRBuilder<> body(llvm::BasicBlock::Create(module_.getContext(), "entry", f));
    body.CreateRet(emit(body, f->getArg(0)));
  }
  return b_.CreateCall(f, {x});
}

llvm::Value* ScalarIR::intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) { return b_.CreateUnaryIntrinsic(id, x); }

// Complex comparisons as the interpreter's: EQ and NE on both parts, the others
// lexicographic on (real, imag).
llvm::Value* ScalarIR::complexCompare(const Op& op, llvm::Value* a, llvm::Value* c) {
  using D = ComparisonDirection;
  using P = llvm::CmpInst::Predicate;
  D dir = comparisonDirectionOf(op.attr("comparison_direction"));
  if (dir == D::EQ) return b_.CreateAnd(b_.CreateFCmpOEQ(re(a), re(c)), b_.CreateFCmpOEQ(im(a), im(c)));
  if (dir == D::NE) return b_.CreateOr(b_.CreateFCmpUNE(re(a), re(c)), b_.CreateFCmpUNE(im(a), im(c)));
  P p = dir == D::LT ? P::FCMP_OLT : dir == D::LE ? P::FCMP_OLE : dir == D::GT ? P::FCMP_OGT : P::FCMP_OGE;
  return b_.CreateSelect(b_.CreateFCmpUNE(re(a), re(c)), b_.CreateFCmp(p, re(a), re(c)), b_.CreateFCmp(p, im(a), im(c)));
}

// libgcc's complex product or quotient of a and c (g++'s for std::complex).
llvm::Value* ScalarIR::libgccComplex(const char* function, DType t, llvm::Value* a, llvm::Value* c) {
  const bool f64 = t == DType::C128;
  llvm::Type* part = f64 ? b_.getDoubleTy() : b_.getFloatTy();
  // complex float comes back packed in one register (<2 x float>), complex double in two.
  llvm::Type* ret = f64 ? static_cast<llvm::Type*>(llvm::StructType::get(part, part))
                        : llvm::FixedVectorType::get(part, 2);
  llvm::FunctionCallee callee =
      module_.getOrInsertFunction(function, llvm::FunctionType::get(ret, {part, part, part, part}, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
  }
  llvm::Value* r = b_.CreateCall(callee, {re(a), im(a), re(c), im(c)});
  if (f64) return complexOf(t, b_.CreateExtractValue(r, 0), b_.CreateExtractValue(r, 1));
  return complexOf(t, b_.CreateExtractElement(r, uint64_t{0}), b_.CreateExtractElement(r, uint64_t{1}));
}

llvm::Value* ScalarIR::complexProduct(DType t, llvm::Value* a, llvm::Value* c) {
  return libgccComplex(t == DType::C128 ? "__muldc3" : "__mulsc3", t, a, c);
}

llvm::Value* ScalarIR::complexSum(DType t, llvm::Value* a, llvm::Value* c) {
  return complexOf(t, b_.CreateFAdd(re(a), re(c)), b_.CreateFAdd(im(a), im(c)));
}

// Complex arithmetic as the interpreter's std::complex computes it: sums by parts, and
// products and quotients through libgcc's __mulsc3/__divsc3 (…dc3 for complex<f64>),
// which g++ calls for them (the product's plain formula, which it tries first, is what
// __mulsc3 computes when no NaN comes out).
llvm::Value* ScalarIR::complexElementwise(const Op& op, DType t, const std::vector<llvm::Value*>& x) {
  namespace O = ops;
  const bool f64 = t == DType::C128;
  llvm::Type* part = f64 ? b_.getDoubleTy() : b_.getFloatTy();
  // Math functions through the interpreter's own (runtime_kernels.h), at their address:
  // the operands and the result pass through stack slots of {real, imag}.
  const bool binary = kernels::hasComplexBinary(op.code());
  if (kernels::hasComplexUnary(op.code()) || op.is(O::Abs) || binary) {
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    auto slot = [&](llvm::Value* z) {
      llvm::Value* at = entry.CreateAlloca(part, b_.getInt32(2));
      if (z) {
        b_.CreateStore(re(z), at);
        b_.CreateStore(im(z), b_.CreateConstInBoundsGEP1_32(part, at, 1));
      }
      return at;
    };
    llvm::Type* ptr = b_.getPtrTy();
    std::vector<llvm::Value*> args = {b_.getInt32(static_cast<uint32_t>(op.code())), slot(x[0])};
    std::vector<llvm::Type*> params = {b_.getInt32Ty(), ptr, ptr};
    const char* function;
    if (binary) {
      args.push_back(slot(x[1]));
      params.push_back(ptr);
      function = f64 ? "kilnComplexBinaryC128" : "kilnComplexBinaryC64";
    } else {
      function = f64 ? "kilnComplexUnaryC128" : "kilnComplexUnaryC64";
    }
    llvm::Value* out = slot(nullptr);
    args.push_back(out);
    b_.CreateCall(module_.getOrInsertFunction(function, llvm::FunctionType::get(b_.getVoidTy(), params, false)), args);
    llvm::Value* r = b_.CreateLoad(part, out);
    if (op.is(O::Abs)) return r;
    return complexOf(t, r, b_.CreateLoad(part, b_.CreateConstInBoundsGEP1_32(part, out, 1)));
  }
  switch (op.code()) {
    case O::Add: return complexSum(t, x[0], x[1]);
    case O::Subtract: return complexOf(t, b_.CreateFSub(re(x[0]), re(x[1])), b_.CreateFSub(im(x[0]), im(x[1])));
    case O::Negate: return complexOf(t, b_.CreateFNeg(re(x[0])), b_.CreateFNeg(im(x[0])));
    case O::Multiply: return libgccComplex(f64 ? "__muldc3" : "__mulsc3", t, x[0], x[1]);
    case O::Divide: return libgccComplex(f64 ? "__divdc3" : "__divsc3", t, x[0], x[1]);
    case O::Real: return re(x[0]);
    case O::Imag: return im(x[0]);
    default: decline("unsupported: " + std::string(op.name()) + " of " + std::string(name(t)));
  }
}

llvm::Value* ScalarIR::elementwise(const Op& op, DType t, const std::vector<llvm::Value*>& x) {
  namespace O = ops;
  if (op.is(O::Complex)) return complexOf(op.result()->type().dtype(), x[0], x[1]);
  if (op.is(O::Real) && !isComplex(t)) return x[0];  // a real number's real part is itself
  if (op.is(O::Imag) && !isComplex(t)) return llvm::Constant::getNullValue(registerType(t));
  if (isComplex(t)) return complexElementwise(op, t, x);
  llvm::Type* type = registerType(t);
  bool f = isFloat(t), boolean = isBool(t), s = isSignedInt(t);
  auto zero = [&] { return llvm::Constant::getNullValue(type); };
  auto allOnes = [&] { return llvm::Constant::getAllOnesValue(type); };
  auto intConst = [&](int64_t v) { return llvm::ConstantInt::get(type, static_cast<uint64_t>(v), true); };
  auto fpConst = [&](double v) { return llvm::ConstantFP::get(type, v); };
  auto floatOnly = [&] {
    if (!f) decline("unsupported: " + std::string(op.name()) + " of " + std::string(name(t)));
  };
  switch (op.code()) {
    case O::Add: return f ? b_.CreateFAdd(x[0], x[1]) : boolean ? b_.CreateOr(x[0], x[1]) : b_.CreateAdd(x[0], x[1]);
    case O::Subtract: return f ? b_.CreateFSub(x[0], x[1]) : boolean ? b_.CreateXor(x[0], x[1]) : b_.CreateSub(x[0], x[1]);
    case O::Multiply: return f ? b_.CreateFMul(x[0], x[1]) : boolean ? b_.CreateAnd(x[0], x[1]) : b_.CreateMul(x[0], x[1]);
    case O::Divide:
    case O::Remainder: {
      bool remainder = op.is(O::Remainder);
      if (f) return remainder ? b_.CreateFRem(x[0], x[1]) : b_.CreateFDiv(x[0], x[1]);
      if (boolean) decline("unsupported: " + std::string(op.name()) + " of booleans");
      // x / 0 is all ones and x % 0 is x; MIN / -1 wraps to MIN (as 0 - x), MIN % -1 is 0.
      // The divisor is made safe first: LLVM's division by 0 (or MIN / -1) is undefined.
      llvm::Value* byZero = b_.CreateICmpEQ(x[1], zero());
      llvm::Value* byMinusOne = s ? b_.CreateICmpEQ(x[1], allOnes()) : b_.getFalse();
      llvm::Value* safe = b_.CreateSelect(b_.CreateOr(byZero, byMinusOne), intConst(1), x[1]);
      llvm::Value* q = remainder ? (s ? b_.CreateSRem(x[0], safe) : b_.CreateURem(x[0], safe))
                                 : (s ? b_.CreateSDiv(x[0], safe) : b_.CreateUDiv(x[0], safe));
      q = b_.CreateSelect(byMinusOne, remainder ? zero() : b_.CreateSub(zero(), x[0]), q);
      return b_.CreateSelect(byZero, remainder ? x[0] : allOnes(), q);
    }
    case O::Maximum: return extremum(true, x[0], x[1], t);
    case O::Minimum: return extremum(false, x[0], x[1], t);
    case O::Negate: return f ? b_.CreateFNeg(x[0]) : boolean ? x[0] : b_.CreateSub(zero(), x[0]);
    case O::Abs:
      if (f) return intrinsic(llvm::Intrinsic::fabs, x[0]);
      if (!s) return x[0];
      return b_.CreateSelect(b_.CreateICmpSLT(x[0], zero()), b_.CreateSub(zero(), x[0]), x[0]);
    case O::Not: return b_.CreateXor(x[0], allOnes());
    case O::And: return b_.CreateAnd(x[0], x[1]);
    case O::Or: return b_.CreateOr(x[0], x[1]);
    case O::Xor: return b_.CreateXor(x[0], x[1]);
    case O::ShiftLeft:
    case O::ShiftRightLogical:
    case O::ShiftRightArithmetic: {
      // The amount is read as unsigned: shifting by the width or more gives 0 (the
      // sign, for arithmetic right shifts).
      llvm::Value* width = intConst(bitWidth(t));
      llvm::Value* tooFar = b_.CreateICmpUGE(x[1], width);
      llvm::Value* amount = b_.CreateSelect(tooFar, zero(), x[1]);
      if (op.is(O::ShiftLeft)) return b_.CreateSelect(tooFar, zero(), b_.CreateShl(x[0], amount));
      if (op.is(O::ShiftRightLogical)) return b_.CreateSelect(tooFar, zero(), b_.CreateLShr(x[0], amount));
      llvm::Value* sign = b_.CreateAShr(x[0], intConst(bitWidth(t) - 1));
      return b_.CreateSelect(tooFar, sign, b_.CreateAShr(x[0], amount));
    }
    case O::Popcnt: return intrinsic(llvm::Intrinsic::ctpop, x[0]);
    case O::CountLeadingZeros:
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x[0], b_.getFalse());
    case O::Sign: {
      if (boolean) return x[0];
      if (!f) {
        llvm::Value* positive = s ? b_.CreateICmpSGT(x[0], zero()) : b_.CreateICmpUGT(x[0], zero());
        llvm::Value* negative = s ? b_.CreateICmpSLT(x[0], zero()) : b_.getFalse();
        return b_.CreateSelect(positive, intConst(1), b_.CreateSelect(negative, allOnes(), zero()));
      }
      llvm::Value* keep = b_.CreateOr(isNaN(x[0]), b_.CreateFCmpOEQ(x[0], fpConst(0)));
      return b_.CreateSelect(keep, x[0], b_.CreateSelect(b_.CreateFCmpOLT(x[0], fpConst(0)), fpConst(-1), fpConst(1)));
    }
    case O::IsFinite: return b_.CreateFCmpOLT(intrinsic(llvm::Intrinsic::fabs, x[0]), fpConst(INFINITY));
    case O::Power:
      if (f) return libm("pow", t, {x[0], x[1]});
      if (boolean) decline("unsupported: power of booleans");
      return integerPower(x[0], x[1], s);
    case O::Atan2:
      floatOnly();
      return libm("atan2", t, {x[0], x[1]});
    case O::Sqrt: floatOnly(); return intrinsic(llvm::Intrinsic::sqrt, x[0]);
    case O::Rsqrt: floatOnly(); return b_.CreateFDiv(fpConst(1), intrinsic(llvm::Intrinsic::sqrt, x[0]));
    case O::Floor: floatOnly(); return intrinsic(llvm::Intrinsic::floor, x[0]);
    case O::Ceil: floatOnly(); return intrinsic(llvm::Intrinsic::ceil, x[0]);
    case O::RoundNearestAfz: floatOnly(); return intrinsic(llvm::Intrinsic::round, x[0]);
    case O::RoundNearestEven: floatOnly(); return intrinsic(llvm::Intrinsic::roundeven, x[0]);
    case O::Exponential: floatOnly(); return exp(t, x[0]);
    case O::ExponentialMinusOne: floatOnly(); return t == DType::F64 ? libm("expm1", t, {x[0]}) : math("kiln_math_expm1_f32", x[0], emitExpm1F32);
    case O::Log: floatOnly(); return t == DType::F64 ? libm("log", t, {x[0]}) : math("kiln_math_log_f32", x[0], emitLogF32);
    case O::LogPlusOne: floatOnly(); return t == DType::F64 ? libm("log1p", t, {x[0]}) : math("kiln_math_log1p_f32", x[0], emitLog1pF32);
    case O::Sine: floatOnly(); return t == DType::F64 ? libm("sin", t, {x[0]}) : math("kiln_math_sin_f32", x[0], sinF32);
    case O::Cosine: floatOnly(); return t == DType::F64 ? libm("cos", t, {x[0]}) : math("kiln_math_cos_f32", x[0], cosF32);
    case O::Tan: floatOnly(); return t == DType::F64 ? libm("tan", t, {x[0]}) : math("kiln_math_tan_f32", x[0], tanF32);
    case O::Tanh: floatOnly(); return t == DType::F64 ? libm("tanh", t, {x[0]}) : math("kiln_math_tanh_f32", x[0], emitTanhF32);
    case O::Cbrt: floatOnly(); return libm("cbrt", t, {x[0]});
    case O::Logistic: {
      // 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below, as the interpreter: both from
      // e = e^-|x| (never an overflow) and one division.
      floatOnly();
      llvm::Value* e = exp(t, b_.CreateFNeg(intrinsic(llvm::Intrinsic::fabs, x[0])), /*nonPositive=*/true);
      llvm::Value* numerator = b_.CreateSelect(b_.CreateFCmpOGE(x[0], fpConst(0)), fpConst(1), e);
      return b_.CreateFDiv(numerator, b_.CreateFAdd(fpConst(1), e));
    }
    default: decline("unsupported: " + std::string(op.name()) + " (no native code yet)");
  }
}

}  // namespace kiln::cpu
