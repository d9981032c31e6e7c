// Math functions as inline LLVM IR: branch-free polynomials the loop vectorizer turns
// into AVX-512 code, instead of scalar libm calls that keep a loop scalar. Included only
// by scalar_ir.cc (it shares the IRBuilder). Accuracy against the interpreter (glibc),
// measured over each function's whole f32 range by tests/backends/cpu
// (VectorMathIsWithinItsUlpBounds): exp, log, log1p, expm1, sin, cos and tan ≤ 1 ulp, tanh and
// logistic ≤ 2 ulp; NaN, ±inf, ±0, overflow and gradual underflow come out as glibc gives
// them. The f64 functions and cbrt, pow and atan2 are glibc's scalar calls.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace kiln::cpu {

// e^x for an f32 value; `nonPositive` when the caller knows x ≤ 0 or NaN (the overflow
// checks are left out).
llvm::Value* emitExpF32(llvm::IRBuilder<>& b, llvm::Value* x, bool nonPositive = false);
// tanh(x) for an f32 value.
llvm::Value* emitTanhF32(llvm::IRBuilder<>& b, llvm::Value* x);
// log(x), log(1 + x) and e^x - 1 for an f32 value.
llvm::Value* emitLogF32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* emitLog1pF32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* emitExpm1F32(llvm::IRBuilder<>& b, llvm::Value* x);
// sin(x), cos(x) or tan(x) for an f32 value (computed in f64).
enum class Trig { Sin, Cos, Tan };
llvm::Value* emitTrigF32(llvm::IRBuilder<>& b, llvm::Value* x, Trig f);

}  // namespace kiln::cpu
