// stablehlo.rng_bit_generator over raw buffers: XLA's expansion bit for bit
// (Threefry-2x32 with 20 rounds, Philox-4x32-10; DEFAULT is Philox, as on XLA's CPU and
// GPU backends), so JAX-generated expectations hold. One implementation for the
// interpreter and the cpu backend's kernels, which therefore agree by construction; the
// conformance files (JAX's and IREE's) are its check.
//
// The output is a sequence of draws, each a pure function of the key, the counter and
// the draw's number, so any range of draws can be computed apart (on several threads).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/attr_records.h"
#include "ir/type.h"

namespace kiln::kernels {

struct RngBitsLayout {
  RngAlgorithm algorithm = RngAlgorithm::Default;
  int stateWidth = 64;  // bits of a state element: 8, 16, 32 or 64
  int64_t stateElements = 2;
  int outWidth = 32;    // bits of an output element: 8, 16, 32 or 64
  Shape outShape;

  // The layout of an op's state and output types; nothing when an element is not 8, 16,
  // 32 or 64 bits wide (in storage and in value).
  static std::optional<RngBitsLayout> of(RngAlgorithm algorithm, const Type& state, const Type& out);
};

// Why the state does not fit the algorithm ("THREE_FRY needs a 128-bit state"), or nothing.
std::optional<std::string> rngStateProblem(const RngBitsLayout& layout);

// The state's elements (dense, little-endian) as 64-bit words: element 0 in the low bits.
// The one narrow state with a reference is IREE's tensor<4xi32>, whose lowering reads
// the counter (word 1) with its halves swapped, yet writes the new counter back
// little-endian; its conformance files check the outputs this reading gives.
std::vector<uint64_t> rngStateWords(const RngBitsLayout& layout, const void* state);
void rngWriteState(const RngBitsLayout& layout, const std::vector<uint64_t>& words, void* state);

// How many draws the output takes.
int64_t rngDraws(const RngBitsLayout& layout);
// Writes the outputs of draws [begin, end) into `out` (dense, row-major).
void rngDraw(const RngBitsLayout& layout, const std::vector<uint64_t>& words, void* out, int64_t begin, int64_t end);
// The state's words after all the draws.
std::vector<uint64_t> rngAdvance(const RngBitsLayout& layout, std::vector<uint64_t> words);

}  // namespace kiln::kernels
