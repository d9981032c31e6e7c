// Scalar arithmetic as LLVM IR, with the interpreter's semantics for every op and element
// type the kernels cover: register and storage types, f16/bf16 rounding, constants,
// conversions, comparisons, IEEE maximum/minimum and each elementwise op. The kernel
// emitter (kernel_emitter.cc) decides where values are computed; this decides what a
// computed value is. Included only by the files that build LLVM IR.
#pragma once

#include <functional>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ir/module.h"

namespace kiln::cpu {

// Thrown while emitting an op the emitter has no code for: that op stays with the
// interpreter, the others of the module still compile.
struct Declined {
  std::string reason;
};
[[noreturn]] inline void decline(std::string reason) { throw Declined{std::move(reason)}; }

// f16 and bf16 are computed in f32 and rounded to their format after every op, as the
// interpreter computes them, so fused and unfused results agree bit for bit.
inline bool isNarrowFloat(DType t) { return t == DType::F16 || t == DType::BF16; }

class ScalarIR {
 public:
  ScalarIR(llvm::IRBuilder<>& b, llvm::Module& module) : b_(b), module_(module) {}

  // The type a value of `t` has in registers (booleans i1, f16/bf16 float) and in memory
  // (booleans one byte, f16/bf16 their 16 bits).
  llvm::Type* registerType(DType t);
  llvm::Type* storageType(DType t);
  // An f32 computed for an f16/bf16 value rounded to nearest even in that format (kept in
  // f32); NaN becomes the format's one quiet NaN, as the interpreter encodes it. Other
  // types pass through.
  llvm::Value* roundToFormat(llvm::Value* x, DType t);
  // `x` computed for `op`'s result of type `t`, rounded to it unless the op keeps its
  // operands' elements (kKeepsElements: already in the format; a NaN keeps its bits).
  llvm::Value* roundResult(const Op& op, llvm::Value* x, DType t);
  // The element with storage bits `bits`, in registers (not for complex types).
  llvm::Value* constant(DType t, uint64_t bits);
  // Element i of `lit`, in registers (any type).
  llvm::Value* constantOf(const Literal& lit, int64_t i);
  llvm::Value* convert(llvm::Value* x, DType from, DType to);
  // stablehlo.compare `op` of two values of its operands' element type.
  llvm::Value* compare(const Op& op, llvm::Value* a, llvm::Value* c);
  // maximum (max) or minimum of two values of `t`: IEEE for floats (NaN wins, -0 < +0).
  llvm::Value* extremum(bool max, llvm::Value* a, llvm::Value* c, DType t);
  // a · c and a + c for complex numbers of type `t`, as std::complex computes them.
  llvm::Value* complexProduct(DType t, llvm::Value* a, llvm::Value* c);
  llvm::Value* complexSum(DType t, llvm::Value* a, llvm::Value* c);
  // The elementwise op `op` on operands of element type `t`.
  llvm::Value* elementwise(const Op& op, DType t, const std::vector<llvm::Value*>& x);

 private:
  llvm::Value* totalOrderKey(llvm::Value* x);
  // Complex values are {real, imag} structs of their part type.
  llvm::Value* complexOf(DType t, llvm::Value* re, llvm::Value* im);
  llvm::Value* re(llvm::Value* z) { return b_.CreateExtractValue(z, 0); }
  llvm::Value* im(llvm::Value* z) { return b_.CreateExtractValue(z, 1); }
  llvm::Value* complexElementwise(const Op& op, DType t, const std::vector<llvm::Value*>& x);
  llvm::Value* complexCompare(const Op& op, llvm::Value* a, llvm::Value* c);
  llvm::Value* libgccComplex(const char* function, DType t, llvm::Value* a, llvm::Value* c);
  llvm::Value* isNaN(llvm::Value* x);
  llvm::Value* libm(const char* name, DType t, std::vector<llvm::Value*> args);
  llvm::Value* integerPower(llvm::Value* base, llvm::Value* exponent, bool isSigned);
  // e^x; `nonPositive` when x ≤ 0 or NaN is known (the f32 code skips its overflow checks).
  llvm::Value* exp(DType t, llvm::Value* x, bool nonPositive = false);
  // A call of the f32 math function `name` (vector_math.h), emitted once per LLVM module
  // by `emit`: expanded in every kernel it was most of the fast tier's machine code. It
  // is always inlined when the module is optimized, where the vectorizer needs it
  // inline; the fast tier calls it. The same operations either way, so the same bits.
  // (Values other than scalar f32 get the expansion in place.)
  llvm::Value* math(const char* name, llvm::Value* x,
                    const std::function<llvm::Value*(llvm::IRBuilder<>&, llvm::Value*)>& emit);
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::Value* x);

  llvm::IRBuilder<>& b_;
  llvm::Module& module_;
};

}  // namespace kiln::cpu
