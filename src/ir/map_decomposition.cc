// decomposeMap (map_decomposition.h).
#include "ir/map_decomposition.h"

#include "ir/builder.h"

namespace kiln {

std::vector<Value*> decomposeMap(Builder& b, const Op& op) {
  const Type& resultType = op.result()->type();
  if (!resultType.isTensor()) return {};
  const Shape& shape = resultType.shape();
  if (static_cast<int64_t>(op.attr("dimensions").asInts().size()) != resultType.rank()) return {};
  const Region& body = op.region(0);
  // Check first, so that a decomposition that declines builds nothing.
  for (const auto& inner : body.ops()) {
    if (inner->info().isTerminator()) continue;
    if (inner->numRegions() > 0) return {};
    const bool splattable = inner->is(OpCode::Constant) && inner->numResults() == 1 &&
                            inner->result()->type().numElements() == 1;
    if (!splattable && !inner->info().has(kElementwise)) return {};
  }
  std::unordered_map<const Value*, Value*> full;
  for (size_t i = 0; i < body.numArguments(); ++i) full[body.argument(i)] = op.operand(i);
  for (const auto& inner : body.ops()) {
    if (inner->info().isTerminator()) return {full.at(inner->operand(0))};
    if (inner->is(OpCode::Constant)) {
      full[inner->result()] = b.broadcastInDim(b.constant(inner->attr("value").asDense()), shape, {});
      continue;
    }
    std::vector<Value*> operands;
    for (const Value* v : inner->operands()) operands.push_back(full.at(v));
    TypeList given;
    for (const Value* r : inner->results()) given.push_back(Type::tensor(r->type().dtype(), shape));
    Op* copy = b.create(inner->code(), operands, inner->attrs(), {}, given);
    for (size_t r = 0; r < inner->numResults(); ++r) full[inner->result(r)] = copy->result(r);
  }
  return {};
}

}  // namespace kiln
