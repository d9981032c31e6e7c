#include "passes/fusion_cost.h"

#include <fmt/format.h>

#include "passes/buffer_assignment.h"
#include "passes/op_facts.h"

namespace kiln::passes {

FusionClass fusionClass(const Op& op) {
  if (hasSideEffects(op)) return FusionClass::Opaque;
  switch (op.code()) {
    case OpCode::Reduce: return FusionClass::Reduce;
    case OpCode::DotGeneral:
    case OpCode::Dot:
    case OpCode::Convolution: return FusionClass::Dot;
    // Data movement that is an index map: each output element reads one known element.
    case OpCode::Broadcast:
    case OpCode::BroadcastInDim:
    case OpCode::Reshape:
    case OpCode::Transpose:
    case OpCode::Slice:
    case OpCode::Concatenate:
    case OpCode::Pad:
    case OpCode::Iota:
    case OpCode::Reverse:
    case OpCode::Convert:
    case OpCode::Select:
    case OpCode::Clamp:
    case OpCode::Compare:
      return FusionClass::Loop;
    default: break;
  }
  if (op.info().has(kElementwise)) {
    for (const Value* r : op.results())
      if (!r->type().isTensor()) return FusionClass::Opaque;
    return FusionClass::Loop;
  }
  return FusionClass::Opaque;
}

bool isExpensive(const Op& op) {
  switch (op.code()) {
    case OpCode::Exponential:
    case OpCode::ExponentialMinusOne:
    case OpCode::Log:
    case OpCode::LogPlusOne:
    case OpCode::Logistic:
    case OpCode::Tanh:
    case OpCode::Sine:
    case OpCode::Cosine:
    case OpCode::Tan:
    case OpCode::Atan2:
    case OpCode::Power:
    case OpCode::Sqrt:
    case OpCode::Rsqrt:
    case OpCode::Cbrt:
    case OpCode::Divide:
    case OpCode::Remainder:
      return true;
    default:
      return op.info().category == OpCategory::Chlo;
  }
}

bool isCheapToDuplicate(const Op& op) {
  switch (op.code()) {
    case OpCode::Constant: {
      const Literal& value = op.attr("value").asDense();
      return value.isSplat() || value.numElements() <= 1;
    }
    case OpCode::Broadcast:
    case OpCode::BroadcastInDim:
    case OpCode::Iota:
    case OpCode::Reshape:
      return true;
    default:
      return false;
  }
}

std::optional<std::string> stridedReadCost(const Op& producer) {
  if (!producer.is(OpCode::Transpose)) return std::nullopt;
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
