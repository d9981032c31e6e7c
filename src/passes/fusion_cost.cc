#include "passes/fusion_cost.h"

#include <fmt/format.h>

#include "ir/ops/stablehlo.h"
#include "passes/buffer_assignment.h"
#include "passes/op_facts.h"

namespace kiln::passes {

FusionClass fusionClass(const Op& op) {
  if (hasSideEffects(op)) return FusionClass::Opaque;
  switch (op.info().fusion) {
    case FusionRole::Reduce: return FusionClass::Reduce;
    case FusionRole::Dot: return FusionClass::Dot;
    case FusionRole::Loop:
      // Kernels compute tensors; an elementwise op over tuples or tokens stays outside.
      for (const Value* r : op.results())
        if (!r->type().isTensor()) return FusionClass::Opaque;
      return FusionClass::Loop;
    case FusionRole::Opaque: break;
  }
  return FusionClass::Opaque;
}

bool isExpensive(const Op& op) { return op.info().has(kExpensive); }

bool isCheapToDuplicate(const Op& op) {
  switch (op.code()) {
    case ops::Constant: {
      const Literal& value = op.attr("value").asDense();
      return value.isSplat() || value.numElements() <= 1;
    }
    case ops::Broadcast:
    case ops::BroadcastInDim:
    case ops::Iota:
    case ops::Reshape:
      return true;
    default:
      return false;
  }
}

std::optional<std::string> stridedReadCost(const Op& producer) {
  if (!producer.is(ops::Transpose)) return std::nullopt;
  const std::vector<int64_t>& perm = producer.attr("permutation").asInts();
  int64_t rank = static_cast<int64_t>(perm.size());
  if (rank < 2 || perm.back() == rank - 1) return std::nullopt;  // the minor dimension stays
  const Type& in = producer.operand(0)->type();
  int64_t bytes = valueBytes(in);
  if (bytes <= kCacheResidentBytes) return std::nullopt;
  // Fused, every element read is a cache line (64 B) fetched for one element; a
  // materialized transpose is tiled by the backend and costs a write and a read.
  int64_t element = std::max<int64_t>(1, bytes / std::max<int64_t>(1, in.numElements()));
  int64_t fusedBytes = bytes / element * 64;
  int64_t stride = 1;  // between input elements the output's minor dimension walks over
  for (int64_t d = perm.back() + 1; d < rank; ++d) stride *= in.shape()[d];
  if (fusedBytes <= 2 * bytes) return std::nullopt;
  return fmt::format("fused, the transpose reads its {} KiB operand with stride {} (~{} KiB of cache lines); "
                     "materialized it costs {} KiB",
                     bytes / 1024, stride, fusedBytes / 1024, 2 * bytes / 1024);
}

}  // namespace kiln::passes
