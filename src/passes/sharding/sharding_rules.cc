// The sharding rule of each op (see sharding_rules.h).
#include "passes/sharding/sharding_rules.h"

#include <numeric>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::passes {
namespace {

using Kind = ShardingRule::Kind;

struct RuleBuilder {
  ShardingRule rule;
  explicit RuleBuilder(const Op& op) {
    rule.known = true;
    for (const Value* v : op.operands()) rule.operandDims.emplace_back(v->type().isTensor() ? v->type().rank() : 0, -1);
    for (const Value* v : op.results()) rule.resultDims.emplace_back(v->type().isTensor() ? v->type().rank() : 0, -1);
    rule.paddingOperand.assign(op.numOperands(), -1);
  }
  // A Windowed factor (see ShardingRule::Factor), or -1 when the window's dimension must
  // stay whole: its operand is dilated, negative padding cuts it, or the result's size
  // times the stride is not the operand's (every device's result piece would then read
  // a different span around its operand piece).
  int windowed(int64_t in, int64_t out, const Window& w, size_t i, int64_t windowSize) {
    if (!w.paddingShapeOk || w.baseDilations[i] != 1 || w.padding[i].first < 0 || in != w.strides[i] * out) return -1;
    const int f = factor(out, Kind::Windowed);
    rule.factors[f].stride = w.strides[i];
    rule.factors[f].low = w.padding[i].first;
    rule.factors[f].extent = (windowSize - 1) * w.windowDilations[i] + 1;
    return f;
  }
  int factor(int64_t size, Kind kind = Kind::Parallel) {
    rule.factors.push_back({size, kind});
    return static_cast<int>(rule.factors.size() - 1);
  }
};

ShardingRule unknown() { return {}; }

// Same-shape operands and results, dimension by dimension; scalar operands (select's
// predicate, clamp's bounds) take no part.
ShardingRule elementwise(const Op& op) {
  const Type& out = op.result()->type();
  for (const Value* v : op.operands())
    if (!v->type().isTensor() || (v->type().rank() != 0 && v->type().shape() != out.shape())) return unknown();
  for (const Value* v : op.results())
    if (v->type().shape() != out.shape()) return unknown();
  RuleBuilder r(op);
  for (int64_t d = 0; d < out.rank(); ++d) {
    int f = r.factor(out.shape()[d]);
    for (auto& dims : r.rule.operandDims)
      if (!dims.empty()) dims[d] = f;
    for (auto& dims : r.rule.resultDims) dims[d] = f;
  }
  return r.rule;
}

ShardingRule broadcastInDim(const Op& op) {
  RuleBuilder r(op);
  const Shape& in = op.operand(0)->type().shape();
  const Shape& out = op.result()->type().shape();
  Dims map = op.attr("broadcast_dimensions").asInts();
  for (size_t d = 0; d < out.size(); ++d) r.rule.resultDims[0][d] = r.factor(out[d]);
  for (size_t i = 0; i < map.size(); ++i)  // a dimension of size 1 stretched to more has none
    if (in[i] == out[map[i]]) r.rule.operandDims[0][i] = r.rule.resultDims[0][map[i]];
  return r.rule;
}

ShardingRule transpose(const Op& op) {
  RuleBuilder r(op);
  Dims perm = op.attr("permutation").asInts();
  const Shape& out = op.result()->type().shape();
  for (size_t d = 0; d < out.size(); ++d) {
    r.rule.resultDims[0][d] = r.factor(out[d]);
    r.rule.operandDims[0][perm[d]] = r.rule.resultDims[0][d];
  }
  return r.rule;
}

// Operand and result dimensions fall into groups of equal products ([6] -> [2, 3]); in
// each group the leading dimensions share one factor of the smaller size (splitting the
// major part of a merged or split dimension keeps every piece contiguous); the rest of
// the group stays whole.
ShardingRule reshape(const Op& op) {
  RuleBuilder r(op);
  const Shape& in = op.operand(0)->type().shape();
  const Shape& out = op.result()->type().shape();
  size_t i = 0, o = 0;
  while (i < in.size() && o < out.size()) {
    if (in[i] == 1) { ++i; continue; }
    if (out[o] == 1) { ++o; continue; }
    r.rule.operandDims[0][i] = r.rule.resultDims[0][o] = r.factor(std::min(in[i], out[o]));
    int64_t a = in[i++], b = out[o++];
    while (a != b) {  // the rest of the group
      if (a < b) { if (i == in.size()) return unknown(); a *= in[i++]; }
      else { if (o == out.size()) return unknown(); b *= out[o++]; }
    }
  }
  return r.rule;
}

ShardingRule dotGeneral(const Op& op) {
  RuleBuilder r(op);
  DotDims dims = DotDims::of(op);
  const Shape& lhs = op.operand(0)->type().shape();
  const Shape& rhs = op.operand(1)->type().shape();
  auto& L = r.rule.operandDims[0];
  auto& R = r.rule.operandDims[1];
  auto& out = r.rule.resultDims[0];
  size_t next = 0;
  for (size_t k = 0; k < dims.lhsBatch.size(); ++k)
    L[dims.lhsBatch[k]] = R[dims.rhsBatch[k]] = out[next++] = r.factor(lhs[dims.lhsBatch[k]]);
  for (int64_t d : dims.lhsFree(static_cast<int64_t>(lhs.size()))) L[d] = out[next++] = r.factor(lhs[d]);
  for (int64_t d : dims.rhsFree(static_cast<int64_t>(rhs.size()))) R[d] = out[next++] = r.factor(rhs[d]);
  for (size_t k = 0; k < dims.lhsContracting.size(); ++k)
    L[dims.lhsContracting[k]] = R[dims.rhsContracting[k]] = r.factor(lhs[dims.lhsContracting[k]], Kind::Reduction);
  return r.rule;
}

// One input reduced by add, multiply, max, min, and, or: a reduced dimension split over
// devices leaves partial results that one all_reduce with the same op combines. Several
// inputs (argmax) or other bodies keep the reduced dimensions whole.
ShardingRule reduce(const Op& op) {
  RuleBuilder r(op);
  const size_t n = op.numResults();
  const Shape& in = op.operand(0)->type().shape();
  Dims reduced = op.attr("dimensions").asInts();
  const Op* body = binaryBodyOp(op.region(0));
  Kind reduction = Kind::Replicated;
  if (n == 1 && body) {
    switch (body->code()) {
      case ops::Add: case ops::Multiply: case ops::Maximum: case ops::Minimum:
      case ops::And: case ops::Or:
        reduction = Kind::Reduction;
        r.rule.reducer = body->code();
        break;
      default: break;
    }
  }
  size_t next = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    bool isReduced = std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) != reduced.end();
    int f = r.factor(in[d], isReduced ? reduction : Kind::Parallel);
    for (size_t k = 0; k < n; ++k) r.rule.operandDims[k][d] = f;
    if (!isReduced) {
      for (size_t k = 0; k < n; ++k) r.rule.resultDims[k][next] = f;
      ++next;
    }
  }
  return r.rule;
}

// Ops that keep some dimensions as they are and change others (slice, pad, reverse,
// concatenate): a kept dimension is one parallel factor of every array operand and the
// result; a changed one stays whole (GSPMD's halo exchanges are not implemented).
ShardingRule keepsDimensions(const Op& op, const std::vector<bool>& changed) {
  RuleBuilder r(op);
  const Shape& out = op.result()->type().shape();
  for (size_t d = 0; d < out.size(); ++d) {
    if (changed[d]) continue;
    int f = r.factor(out[d]);
    r.rule.resultDims[0][d] = f;
    for (auto& dims : r.rule.operandDims)
      if (dims.size() == out.size()) dims[d] = f;  // not pad's scalar padding value
  }
  return r.rule;
}

std::vector<bool> changedDimensions(const Op& op) {
  const Shape& in = op.operand(0)->type().shape();
  std::vector<bool> changed(in.size(), false);
  auto mark = [&](const Dims& dims) {
    for (int64_t d : dims) changed[d] = true;
  };
  switch (op.code()) {
    case ops::Slice: {
      Dims start = op.attr("start_indices").asInts(), limit = op.attr("limit_indices").asInts(),
           strides = op.attr("strides").asInts();
      for (size_t d = 0; d < in.size(); ++d) changed[d] = start[d] != 0 || limit[d] != in[d] || strides[d] != 1;
      break;
    }
    case ops::Pad: {
      Dims low = op.attr("edge_padding_low").asInts(), high = op.attr("edge_padding_high").asInts(),
           interior = op.attr("interior_padding").asInts();
      for (size_t d = 0; d < in.size(); ++d) changed[d] = low[d] != 0 || high[d] != 0 || interior[d] != 0;
      break;
    }
    case ops::Reverse: mark(op.attr("dimensions").asInts()); break;
    case ops::Concatenate: changed[op.attr("dimension").asInt()] = true; break;
    default: break;
  }
  return changed;
}

// Values of an iota do not depend on where they sit along the other dimensions.
ShardingRule iota(const Op& op) {
  RuleBuilder r(op);
  const Shape& out = op.result()->type().shape();
  const int64_t along = op.attr("iota_dimension").asInt();
  for (size_t d = 0; d < out.size(); ++d)
    if (static_cast<int64_t>(d) != along) r.rule.resultDims[0][d] = r.factor(out[d]);
  return r.rule;
}

// Convolution: the batch splits freely when there is one batch group; the output
// features split, and the input features are contracted (a reduction), when there is
// one group of each; the spatial dimensions are windowed ("same" and strided
// convolutions) or whole.
ShardingRule convolution(const Op& op) {
  RuleBuilder r(op);
  ConvDims dims = ConvDims::fromAttr(op.attr("dimension_numbers"));
  const int64_t featureGroups = op.attrOrDefault("feature_group_count").asInt();
  const int64_t batchGroups = op.attrOrDefault("batch_group_count").asInt();
  const Shape& in = op.operand(0)->type().shape();
  const Shape& kernel = op.operand(1)->type().shape();
  const Shape& result = op.result()->type().shape();
  auto& I = r.rule.operandDims[0];
  auto& K = r.rule.operandDims[1];
  auto& out = r.rule.resultDims[0];
  if (batchGroups == 1) I[dims.inputBatch] = out[dims.outputBatch] = r.factor(in[dims.inputBatch]);
  if (batchGroups == 1 && featureGroups == 1) {
    K[dims.kernelOutputFeature] = out[dims.outputFeature] = r.factor(kernel[dims.kernelOutputFeature]);
    I[dims.inputFeature] = K[dims.kernelInputFeature] = r.factor(in[dims.inputFeature], Kind::Reduction);
  }
  const Window w = Window::ofConvolution(op, static_cast<int64_t>(dims.inputSpatial.size()));
  for (size_t i = 0; i < dims.inputSpatial.size(); ++i)
    I[dims.inputSpatial[i]] = out[dims.outputSpatial[i]] =
        r.windowed(in[dims.inputSpatial[i]], result[dims.outputSpatial[i]], w, i, kernel[dims.kernelSpatial[i]]);
  return r.rule;
}

// Reduce_window (pooling): each dimension is windowed or whole, in every input and
// result alike; past the ends, each input's window reads its init value.
ShardingRule reduceWindow(const Op& op) {
  RuleBuilder r(op);
  const size_t n = op.numResults();
  const Shape& in = op.operand(0)->type().shape();
  const Shape& out = op.result()->type().shape();
  const Window w = Window::ofReduceWindow(op, static_cast<int64_t>(in.size()));
  for (size_t d = 0; d < in.size(); ++d) {
    const int f = r.windowed(in[d], out[d], w, d, w.dimensions[d]);
    for (size_t k = 0; k < n; ++k) r.rule.operandDims[k][d] = r.rule.resultDims[k][d] = f;
  }
  for (size_t k = 0; k < n; ++k) r.rule.paddingOperand[k] = static_cast<int>(n + k);
  return r.rule;
}

// Gather: the indices' batch dimensions are the output's batch dimensions (and, for
// batching dimensions, the operand's too); an operand dimension taken whole by every
// slice and not indexed is the output's offset dimension. An indexed dimension stays
// whole (a split vocabulary would need masking and an all_reduce).
ShardingRule gather(const Op& op) {
  RuleBuilder r(op);
  GatherDims g = GatherDims::fromAttr(op.attr("dimension_numbers"));
  Dims sliceSizes = op.attr("slice_sizes").asInts();
  const Shape& operand = op.operand(0)->type().shape();
  const Shape& indices = op.operand(1)->type().shape();
  const Shape& out = op.result()->type().shape();
  auto contains = [](const Dims& dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
  auto& O = r.rule.operandDims[0];
  auto& I = r.rule.operandDims[1];
  auto& R = r.rule.resultDims[0];
  int64_t next = 0;  // the next output batch dimension
  for (int64_t id = 0; id < static_cast<int64_t>(indices.size()); ++id) {
    if (id == g.indexVectorDim) continue;
    while (contains(g.offsetDims, next)) ++next;
    int f = r.factor(indices[id]);
    I[id] = R[next++] = f;
    for (size_t j = 0; j < g.startIndicesBatchingDims.size(); ++j)
      if (g.startIndicesBatchingDims[j] == id) O[g.operandBatchingDims[j]] = f;
  }
  size_t k = 0;  // the next offset dimension
  for (int64_t od = 0; od < static_cast<int64_t>(operand.size()); ++od) {
    if (contains(g.collapsedSliceDims, od) || contains(g.operandBatchingDims, od)) continue;
    const int64_t rd = g.offsetDims[k++];
    if (sliceSizes[od] == operand[od] && !contains(g.startIndexMap, od)) O[od] = R[rd] = r.factor(out[rd]);
  }
  return r.rule;
}

// Scatter (operands: the inputs, the indices, the updates): an input dimension every
// update window covers whole and no index addresses is the updates' matching window
// dimension and the result's; the indices' batching dimensions are the updates' and the
// inputs' batching dimensions. Other update dimensions (which updates go where) stay
// whole: split, every device would add its updates to the whole input, which no
// collective takes apart again.
ShardingRule scatter(const Op& op) {
  RuleBuilder r(op);
  const ScatterDims s = ScatterDims::fromAttr(op.attr("scatter_dimension_numbers"));
  const size_t n = op.numResults();  // inputs, and updates, per result
  const Shape& input = op.operand(0)->type().shape();
  const Shape& indices = op.operand(n)->type().shape();
  const Shape& updates = op.operand(n + 1)->type().shape();
  auto contains = [](const Dims& dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
  auto tie = [&](int64_t inputDim, int64_t updateDim, int f) {
    for (size_t k = 0; k < n; ++k) {
      if (inputDim >= 0) r.rule.operandDims[k][inputDim] = r.rule.resultDims[k][inputDim] = f;
      r.rule.operandDims[n + 1 + k][updateDim] = f;
    }
  };
  // The update dimensions that are not window dimensions follow the indices' dimensions
  // (all but index_vector_dim), in order.
  int64_t next = 0;
  for (int64_t id = 0; id < static_cast<int64_t>(indices.size()); ++id) {
    if (id == s.indexVectorDim) continue;
    while (contains(s.updateWindowDims, next)) ++next;
    const int64_t ud = next++;
    for (size_t j = 0; j < s.scatterIndicesBatchingDims.size(); ++j)
      if (s.scatterIndicesBatchingDims[j] == id) {
        const int f = r.factor(indices[id]);
        r.rule.operandDims[n][id] = f;
        tie(s.inputBatchingDims[j], ud, f);
      }
  }
  size_t k = 0;  // the next update window dimension
  for (int64_t od = 0; od < static_cast<int64_t>(input.size()); ++od) {
    if (contains(s.insertedWindowDims, od) || contains(s.inputBatchingDims, od)) continue;
    const int64_t ud = s.updateWindowDims[k++];
    if (updates[ud] == input[od] && !contains(s.scatterDimsToOperandDims, od)) tie(od, ud, r.factor(input[od]));
  }
  return r.rule;
}

}  // namespace

bool ShardingRule::Factor::splitsInto(int64_t pieces) const {
  if (size % pieces != 0) return false;
  if (kind != Kind::Windowed || pieces == 1) return true;
  const int64_t local = stride * size / pieces;
  const auto [before, after] = halos(pieces);
  return before <= local && after <= local && local + after > 0;
}

std::pair<int64_t, int64_t> ShardingRule::Factor::halos(int64_t pieces) const {
  // A device's result piece, elements [j0, j0 + size/pieces), reads operand elements
  // [j0*stride - low, (j0 + size/pieces - 1)*stride - low + extent); it holds
  // [j0*stride, (j0 + size/pieces)*stride).
  const int64_t local = stride * size / pieces, span = (size / pieces - 1) * stride + extent;
  return {low, span - low - local};
}

ShardingRule shardingRule(const Op& op) {
  for (const Value* v : op.results())
    if (!v->type().isTensor()) return unknown();
  switch (op.info().category) {
    case OpCategory::ElementwiseUnary:
    case OpCategory::ElementwiseBinary:
    case OpCategory::ElementwiseOther:
      return op.numRegions() == 0 ? elementwise(op) : unknown();
    default: break;
  }
  switch (op.code()) {
    case ops::BroadcastInDim: return broadcastInDim(op);
    case ops::Transpose: return transpose(op);
    case ops::Reshape: return reshape(op);
    case ops::DotGeneral:
    case ops::Dot: return dotGeneral(op);
    case ops::Reduce: return reduce(op);
    case ops::Slice:
    case ops::Pad:
    case ops::Reverse:
    case ops::Concatenate: return keepsDimensions(op, changedDimensions(op));
    case ops::Iota: return iota(op);
    case ops::Convolution: return convolution(op);
    case ops::ReduceWindow: return reduceWindow(op);
    case ops::Gather: return gather(op);
    case ops::Scatter: return scatter(op);
    default: return unknown();
  }
}

NamedAttrList localAttributes(const Op& op, const TypeList& localOperands, const Dims& haloed) {
  NamedAttrList attrs = op.attrs();
  auto noPaddingAlong = [&](Window w, const Dims& windowDims) {  // windowDims[i]: window i's operand dimension
    for (size_t i = 0; i < windowDims.size(); ++i)
      if (std::find(haloed.begin(), haloed.end(), windowDims[i]) != haloed.end()) w.padding[i] = {0, 0};
    return w;
  };
  if (op.is(ops::Convolution) && !haloed.empty()) {
    const Dims spatial = ConvDims::fromAttr(op.attr("dimension_numbers")).inputSpatial;
    setConvolutionWindowAttrs(attrs, noPaddingAlong(Window::ofConvolution(op, static_cast<int64_t>(spatial.size())), spatial));
  }
  if (op.is(ops::ReduceWindow) && !haloed.empty()) {
    Dims all(static_cast<size_t>(op.operand(0)->type().rank()));
    std::iota(all.begin(), all.end(), 0);
    setReduceWindowAttrs(attrs, noPaddingAlong(Window::ofReduceWindow(op, static_cast<int64_t>(all.size())), all));
  }
  if (op.is(ops::Slice)) {
    // A kept dimension is sliced whole: [0, its local size).
    const Shape& global = op.operand(0)->type().shape();
    Dims limit = op.attr("limit_indices").asInts();
    for (size_t d = 0; d < limit.size(); ++d)
      if (limit[d] == global[d]) limit[d] = localOperands[0].shape()[d];
    setAttr(attrs, "limit_indices", Attribute::i64Array(limit));
  }
  if (op.is(ops::Gather)) {
    // A dimension every slice takes whole takes the local piece whole.
    const Shape& global = op.operand(0)->type().shape();
    Dims sizes = op.attr("slice_sizes").asInts();
    for (size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d] == global[d]) sizes[d] = localOperands[0].shape()[d];
    setAttr(attrs, "slice_sizes", Attribute::i64Array(sizes));
  }
  return attrs;
}

std::string where(const Op& op) {
  return std::string(op.name()) + (op.pos.known() ? " (line " + std::to_string(op.pos.line) + ")" : "");
}

std::string axesText(const std::vector<std::string>& axes) {
  std::string out = "{";
  for (size_t i = 0; i < axes.size(); ++i) out += (i ? ", \"" : "\"") + axes[i] + "\"";
  return out + "}";
}

}  // namespace kiln::passes
