// Math functions as inline LLVM IR: branch-free polynomials the loop vectorizer turns
// into AVX-512 code, instead of scalar libm calls that keep a loop scalar. Included only
// by kernel_emitter.cc (it shares the IRBuilder). Accuracy against the interpreter (glibc),
// measured by tests/backends/cpu: exp ≤ 1 ulp, tanh and logistic ≤ 2 ulp, for f32; NaN,
// ±inf, ±0, overflow and gradual underflow come out as glibc gives them.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace kiln::cpu {

// e^x for an f32 value.
llvm::Value* emitExpF32(llvm::IRBuilder<>& b, llvm::Value* x);
// tanh(x) for an f32 value.
llvm::Value* emitTanhF32(llvm::IRBuilder<>& b, llvm::Value* x);

}  // namespace kiln::cpu
