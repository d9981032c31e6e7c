// C++ functions that compiled kernels call for the work that is not a loop over elements:
// sorting a line with a compiled comparator, and complex math (the interpreter's own
// algorithms, so that both give the same bits). Kernels call them by name, and every JIT
// session defines those names as these functions' addresses in this process
// (runtimeFunctions): machine code kept on disk or in a serialized executable holds no
// address of the process that compiled it.
#pragma once

#include <cstdint>
#include <span>

#include "ir/ops/stablehlo.h"

namespace kiln::cpu {

// Compares elements `a` and `b` (linear indices into the sort's operands) with the
// comparator region; nonzero: a goes first.
using SortLess = int32_t (*)(void* const* buffers, int64_t a, int64_t b);

// The line `line` of a stablehlo.sort over `operands` operands: `buffers` holds the
// operands then the results (dense, row-major); the line has `length` elements `stride`
// apart; each operand's elements are `elementBytes[k]` wide. The line's permutation is
// sorted with std::stable_sort, as the interpreter sorts (so that the same comparisons
// give the same order even for a comparator that is not a strict weak order), and every
// operand is permuted into its result.
extern "C" void kilnSortLine(void* const* buffers, int64_t line, SortLess less, int64_t operands, int64_t length,
                             int64_t stride, const int64_t* elementBytes);

// The complex math op `code` (an OpCode that kernels::hasComplexUnary) at the complex
// number `in` ({real, imag}), written to `out`; |in| for ops::Abs (one part).
extern "C" void kilnComplexUnaryC64(int32_t code, const float* in, float* out);
extern "C" void kilnComplexUnaryC128(int32_t code, const double* in, double* out);
// The complex binary op `code` (kernels::hasComplexBinary) at `a` and `b`, written to `out`.
extern "C" void kilnComplexBinaryC64(int32_t code, const float* a, const float* b, float* out);
extern "C" void kilnComplexBinaryC128(int32_t code, const double* a, const double* b, double* out);

// Draws [begin, end) of a stablehlo.rng_bit_generator (kernels/random_bits.h): `buffers`
// holds the state, the new state and the output; `layout` is {algorithm, state element
// bits, state elements, output element bits, output rank, output dims...}. The range
// counts at least one iteration; the one that holds 0 writes the new state, and
// iterations past the last draw draw nothing.
extern "C" void kilnRngBits(void* const* buffers, int64_t begin, int64_t end, const int64_t* layout);

// Each function above, by the name kernels call it by.
struct RuntimeFunction {
  const char* name;
  void* address;
};
std::span<const RuntimeFunction> runtimeFunctions();

}  // namespace kiln::cpu
