// The order in which kiln folds the elements of a stablehlo.reduce. The spec leaves it
// to the implementation; kiln fixes one, so that the interpreter and every backend give
// the same bits, and one that vector units and threads can follow: a left-to-right fold
// is a chain of dependent operations (one element per add latency), which no vector
// unit or second thread can shorten without changing the rounding.
//
// Reduce a list x_0 .. x_{n-1} (the reduced elements of one result element, row-major
// over the reduced dimensions) with a body `acc op x` whose op has an identity e for the
// element type (ir/op_registry.h: reducerIdentity; exact, -0.0 for float addition):
//   - the list is cut into chunks of kReduceChunk consecutive elements;
//   - within a chunk, element k goes to lane k mod kReduceLanes; each lane folds its
//     elements left to right starting from e;
//   - the lanes combine pairwise by halving: lane i = lane i op lane i+w for w =
//     kReduceLanes/2, ..., 2, 1; lane 0 is the chunk's value;
//   - the result is init op c_0 op c_1 ... folded left to right over the chunks' values.
// Every op is rounded to the storage format as it is computed (f16, bf16). Bodies with
// their arguments swapped (`x op acc`) follow the same order with the operands swapped.
// For integers and booleans and for max/min every order gives the same bits; the order
// matters for float sums and products, and it rounds no worse than the left fold
// (the error bound of a sum grows with n/kReduceLanes instead of n).
//
// Reductions whose body is anything else (several ops, several inputs as in argmax, an
// op without an identity for the type) fold left to right from the init value, as do
// reduce_window and select_and_scatter (their windows are short).
#pragma once

#include <cstdint>

namespace kiln {

inline constexpr int64_t kReduceLanes = 16;    // one AVX-512 register of f32
inline constexpr int64_t kReduceChunk = 4096;  // a multiple of kReduceLanes

}  // namespace kiln
