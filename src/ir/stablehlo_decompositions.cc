// The decompositions of stablehlo_decompositions.h.
#include "ir/stablehlo_decompositions.h"

#include <algorithm>
#include <optional>

#include "ir/attr_records.h"
#include "ir/builder.h"
#include "ir/ops/stablehlo.h"

namespace kiln {
namespace {

namespace O = ops;

const Shape& resultShape(const Op& op) { return op.result()->type().shape(); }

// The integers of `v` when a constant defines it.
std::optional<Dims> constantInts(const Value* v) {
  const Op* def = v->definingOp();
  if (!def || !def->is(O::Constant)) return std::nullopt;
  const Literal& lit = def->attr("value").asDense();
  Dims out;
  for (int64_t i = 0; i < lit.numElements(); ++i) out.push_back(lit.intAt(i));
  return out;
}

Dims range(int64_t from, int64_t to) {
  Dims out;
  for (int64_t d = from; d < to; ++d) out.push_back(d);
  return out;
}

}  // namespace

// result = broadcast_sizes ++ operand's shape: the operand's dimensions are the last ones.
std::vector<Value*> decomposeBroadcast(Builder& b, const Op& op) {
  const int64_t rank = op.result()->type().rank(), operandRank = op.operand(0)->type().rank();
  return {b.broadcastInDim(op.operand(0), resultShape(op), range(rank - operandRank, rank))};
}

// result[b..., pre..., j..., post...] = operand[b..., pre..., index[b..., j...], post...]:
// a gather of size-1 slices along `dim` (collapsed), the first batch_dims dimensions
// batching dimensions of both, the operand's other dimensions whole windows placed around
// the index dimensions. Out-of-range indices clamp in both.
std::vector<Value*> decomposeTorchIndexSelect(Builder& b, const Op& op) {
  const Type& operand = op.operand(0)->type();
  const int64_t rank = operand.rank(), indexRank = op.operand(1)->type().rank();
  const int64_t dim = op.attr("dim").asInt(), batch = op.attr("batch_dims").asInt();
  const int64_t selected = indexRank - batch;  // result dimensions that come from the index
  GatherDims g;
  g.operandBatchingDims = g.startIndicesBatchingDims = range(0, batch);
  g.collapsedSliceDims = g.startIndexMap = {dim};
  g.indexVectorDim = indexRank;
  Dims sizes = operand.shape();
  for (int64_t d = 0; d < rank; ++d) {
    if (d < batch || d == dim) sizes[static_cast<size_t>(d)] = 1;
    else g.offsetDims.push_back(d < dim ? d : d - 1 + selected);
  }
  return {b.gather(op.operand(0), op.operand(1), g, sizes)};
}

std::vector<Value*> decomposeComposite(Builder& b, const Op& op) {
  NamedAttrList attrs = {{"callee", Attribute::symbol(op.attr("decomposition").asString())}};
  return b.create(O::FuncCall, op.operands(), std::move(attrs), {}, op.resultTypes())->results();
}

std::vector<Value*> decomposeDynamicBroadcastInDim(Builder& b, const Op& op) {
  return {b.broadcastInDim(op.operand(0), resultShape(op), op.attr("broadcast_dimensions").asInts())};
}

std::vector<Value*> decomposeDynamicReshape(Builder& b, const Op& op) {
  return {b.reshape(op.operand(0), resultShape(op))};
}

std::vector<Value*> decomposeDynamicIota(Builder& b, const Op& op) {
  return {b.iota(op.result()->type(), op.attr("iota_dimension").asInt())};
}

// The slice sizes follow from the result type: 1 along collapsed and batching
// dimensions, each window dimension's size where its offset dimension lands.
std::vector<Value*> decomposeDynamicGather(Builder& b, const Op& op) {
  GatherDims g = GatherDims::fromAttr(op.attr("dimension_numbers"));
  const int64_t rank = op.operand(0)->type().rank();
  Dims sizes(static_cast<size_t>(rank), 1);
  size_t k = 0;
  for (int64_t d = 0; d < rank; ++d) {
    auto in = [d](const Dims& dims) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
    if (in(g.collapsedSliceDims) || in(g.operandBatchingDims)) continue;
    if (k == g.offsetDims.size()) return {};
    sizes[static_cast<size_t>(d)] = op.result()->type().dim(g.offsetDims[k++]);
  }
  Attribute sorted = op.attr("indices_are_sorted");
  return {b.gather(op.operand(0), op.operand(1), g, sizes, sorted && sorted.asBool())};
}

std::vector<Value*> decomposeDynamicPad(Builder& b, const Op& op) {
  std::optional<Dims> low = constantInts(op.operand(2)), high = constantInts(op.operand(3)),
                      interior = constantInts(op.operand(4));
  if (!low || !high || !interior) return {};
  return {b.pad(op.operand(0), op.operand(1), *low, *high, *interior)};
}

// d_padding holds (low, high) per spatial dimension: convolution's padding attribute.
std::vector<Value*> decomposeDynamicConv(Builder& b, const Op& op) {
  std::optional<Dims> padding = constantInts(op.operand(2));
  if (!padding) return {};
  Literal pads(Type::tensor(DType::I64, {static_cast<int64_t>(padding->size() / 2), 2}));
  for (size_t i = 0; i < padding->size(); ++i) pads.setInt(static_cast<int64_t>(i), (*padding)[i]);
  NamedAttrList attrs = op.attrs();
  setAttr(attrs, "padding", Attribute::dense(pads));
  return {b.create1(O::Convolution, {op.operand(0), op.operand(1)}, std::move(attrs), {op.result()->type()})};
}

}  // namespace kiln
