// Decompositions through an elementwise region (region_decompositions.h).
#include "ir/region_decompositions.h"

#include "ir/attr_records.h"
#include "ir/builder.h"
#include "ir/ops/stablehlo.h"

namespace kiln {
namespace {

// Whether every op of `body` can run on whole tensors: elementwise ops, select and clamp
// (whose scalar operands, in a body of scalars, become tensors like the others) and
// scalar constants (which become splats).
bool elementwiseBody(const Region& body) {
  for (const auto& inner : body.ops()) {
    if (inner->info().isTerminator()) continue;
    if (inner->numRegions() > 0) return false;
    const bool splattable = inner->is(ops::Constant) && inner->numResults() == 1 &&
                            inner->result()->type().numElements() == 1;
    if (!splattable && !inner->info().has(kElementwise) && !inner->is(ops::Select) && !inner->is(ops::Clamp))
      return false;
  }
  return true;
}

// `body` (elementwiseBody) applied to `args`, tensors of `shape`: what it returns.
std::vector<Value*> applyBody(Builder& b, const Region& body, const std::vector<Value*>& args, const Shape& shape) {
  std::unordered_map<const Value*, Value*> full;
  for (size_t i = 0; i < body.numArguments(); ++i) full[body.argument(i)] = args[i];
  for (const auto& inner : body.ops()) {
    if (inner->info().isTerminator()) {
      std::vector<Value*> out;
      for (const Value* v : inner->operands()) out.push_back(full.at(v));
      return out;
    }
    if (inner->is(ops::Constant)) {
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

}  // namespace

std::vector<Value*> decomposeMap(Builder& b, const Op& op) {
  const Type& resultType = op.result()->type();
  if (!resultType.isTensor()) return {};
  if (static_cast<int64_t>(op.attr("dimensions").asInts().size()) != resultType.rank()) return {};
  if (!elementwiseBody(op.region(0))) return {};  // checked first: one that declines builds nothing
  return applyBody(b, op.region(0), op.operands(), resultType.shape());
}

std::vector<Value*> decomposeReduceWindow(Builder& b, const Op& op) {
  const size_t n = op.numResults();
  const Shape& in = op.operand(0)->type().shape();
  const Shape& out = op.result()->type().shape();
  const int64_t rank = static_cast<int64_t>(in.size());
  const Window w = Window::ofReduceWindow(op, rank);
  int64_t positions = 1;
  for (int64_t size : w.dimensions) positions *= size;
  if (!w.paddingShapeOk || positions > kMaxUnrolledWindow || !elementwiseBody(op.region(0))) return {};
  for (const Value* r : op.results())
    if (r->type().numElements() == 0) return {};
  Dims low, high, interior;
  for (int64_t d = 0; d < rank; ++d) {
    low.push_back(w.padding[d].first);
    high.push_back(w.padding[d].second);
    interior.push_back(w.baseDilations[d] - 1);
  }
  std::vector<Value*> padded, acc;
  for (size_t i = 0; i < n; ++i) {
    padded.push_back(b.pad(op.operand(i), op.operand(n + i), low, high, interior));
    acc.push_back(b.broadcastInDim(op.operand(n + i), out, {}));
  }
  Dims at(static_cast<size_t>(rank), 0);  // the window position, row-major
  for (int64_t p = 0; p < positions; ++p) {
    Dims start, limit;
    for (int64_t d = 0; d < rank; ++d) {
      start.push_back(at[d] * w.windowDilations[d]);
      limit.push_back(start.back() + (out[d] - 1) * w.strides[d] + 1);
    }
    std::vector<Value*> args = acc;
    for (size_t i = 0; i < n; ++i) args.push_back(b.slice(padded[i], start, limit, w.strides));
    acc = applyBody(b, op.region(0), args, out);
    for (int64_t d = rank; d-- > 0;) {
      if (++at[d] < w.dimensions[d]) break;
      at[d] = 0;
    }
  }
  return acc;
}

}  // namespace kiln
