// The fusion cost model: what kind of kernel member an op can be, and the costs that
// decide whether merging a producer into a consumer's kernel beats materializing it.
// Sizes are bytes; a read of a large tensor with a stride on its minor dimension wastes
// most of each cache line it touches.
#pragma once

#include <optional>
#include <string>

#include "ir/ir.h"

namespace kiln::passes {

enum class FusionClass {
  Loop,    // elementwise, or a data movement op that is an index map (broadcast, slice, ...)
  Reduce,  // stablehlo.reduce: ends a kernel; its elementwise producers fuse into it
  Dot,     // dot_general / convolution: may take an elementwise epilogue
  Opaque,  // everything else stays a kernel of its own
};
FusionClass fusionClass(const Op& op);

// Recomputing it per use costs more than reading its result back (transcendentals,
// division, power, ...).
bool isExpensive(const Op& op);

// Cheap enough to copy into every kernel that reads it, leaving the original for the
// others: small constants, broadcasts, iota, reshapes.
bool isCheapToDuplicate(const Op& op);

// Tensors smaller than this fit in the L2 cache: strided reads of them cost nothing
// extra, and reading them twice costs nothing either.
constexpr int64_t kCacheResidentBytes = 256 * 1024;
// Siblings merge into a multi-output kernel when the operand they share is at least this
// large (smaller operands cost nothing to read twice).
constexpr int64_t kSharedOperandMinBytes = 4096;

// When fusing `producer` would make the kernel read the producer's operand with a
// stride on its minor dimension, and that costs more than writing the producer's result
// and reading it back contiguously: the reason, else nothing.
std::optional<std::string> stridedReadCost(const Op& producer);

}  // namespace kiln::passes
