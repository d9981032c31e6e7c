// Autodiff rules of the data-movement ops. Each is linear in its data operands (indices
// and sizes are primal), so one jvp rule serves them all: the same op applied to the
// tangents. Their transposes move cotangents back: a broadcast sums, a slice pads, a
// pad slices, a gather scatter-adds; tuples are taken apart and put together. sort is
// not linear, but its tangents move as its elements do: a gather along the permutation
// it applies.
#include <algorithm>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

namespace O = ops;

// The op again, on the tangents of its data operands (zeros where those are zero) and
// its primal indices.
std::vector<Value*> linearJvp(JvpArgs& a) {
  std::vector<Value*> operands = a.x;
  for (size_t i = 0; i < dataOperands(a.op); ++i) operands[i] = orZeros(a.b, a.t[i], a.x[i]);
  return rebuilt(a.b, a.op, operands, a.op.attrs(), a.op.resultTypes());
}

const Shape& operandShape(const TransposeArgs& a, size_t i) { return a.op.operand(i)->type().shape(); }

Dims attrDims(const Op& op, const char* name) { return op.attr(name).asInts(); }

Value* sum(Builder& b, Value* x, const Dims& dims) {
  Value* zero = zeros(b, Type::scalar(x->type().dtype()));
  return b.reduce({x}, {zero}, dims, [](Builder& c, const std::vector<Value*>& v) {
    return std::vector<Value*>{c.binary(O::Add, v[0], v[1])};
  })[0];
}

// Sums over the dimensions the broadcast added or expanded from size 1, then puts the
// operand's dimensions that remain back in the operand's order (the broadcast may have
// permuted them) and its size-1 dimensions back in place.
std::vector<Value*> broadcastTranspose(TransposeArgs& a) {
  const Shape& in = operandShape(a, 0);
  const Shape& out = a.ct[0]->type().shape();
  Dims dims = attrDims(a.op, "broadcast_dimensions");
  Dims summed;
  std::vector<std::pair<int64_t, int64_t>> kept;  // (output dimension, operand dimension)
  for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d) {
    auto it = std::find(dims.begin(), dims.end(), d);
    size_t i = static_cast<size_t>(it - dims.begin());
    if (it == dims.end() || (in[i] == 1 && out[static_cast<size_t>(d)] != 1)) summed.push_back(d);
    else kept.emplace_back(d, static_cast<int64_t>(i));
  }
  Value* ct = summed.empty() ? a.ct[0] : sum(a.b, a.ct[0], summed);
  // ct's dimensions are the kept ones by output dimension; order them by operand dimension.
  Dims perm(kept.size());
  for (size_t j = 0; j < kept.size(); ++j) perm[j] = static_cast<int64_t>(j);
  std::sort(perm.begin(), perm.end(), [&](int64_t p, int64_t q) {
    return kept[static_cast<size_t>(p)].second < kept[static_cast<size_t>(q)].second;
  });
  if (!std::is_sorted(perm.begin(), perm.end())) ct = a.b.transpose(ct, perm);
  return {a.b.reshape(ct, in)};
}

std::vector<Value*> reshapeTranspose(TransposeArgs& a) { return {a.b.reshape(a.ct[0], operandShape(a, 0))}; }

std::vector<Value*> transposeTranspose(TransposeArgs& a) {
  Dims perm = attrDims(a.op, "permutation");
  Dims inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return {a.b.transpose(a.ct[0], inverse)};
}

std::vector<Value*> reverseTranspose(TransposeArgs& a) {
  return {a.b.reverse(a.ct[0], attrDims(a.op, "dimensions"))};
}

// A slice's cotangent, padded back to the operand with zeros (strides as interior padding).
std::vector<Value*> sliceTranspose(TransposeArgs& a) {
  const Shape& in = operandShape(a, 0);
  const Shape& out = a.ct[0]->type().shape();
  Dims start = attrDims(a.op, "start_indices");
  Dims strides = attrDims(a.op, "strides");
  Dims high(in.size()), interior(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t covered = out[d] == 0 ? 0 : (out[d] - 1) * strides[d] + 1;
    high[d] = in[d] - start[d] - covered;
    interior[d] = strides[d] - 1;
  }
  Value* zero = zeros(a.b, Type::scalar(a.ct[0]->type().dtype()));
  return {a.b.pad(a.ct[0], zero, start, high, interior)};
}

// Each operand's part of the cotangent, sliced along the concatenated dimension.
std::vector<Value*> concatenateTranspose(TransposeArgs& a) {
  int64_t dim = a.op.attr("dimension").asInt();
  const Shape& out = a.ct[0]->type().shape();
  std::vector<Value*> cts;
  int64_t offset = 0;
  for (size_t i = 0; i < a.op.numOperands(); ++i) {
    int64_t size = operandShape(a, i)[static_cast<size_t>(dim)];
    Dims start(out.size(), 0), limit = out, strides(out.size(), 1);
    start[static_cast<size_t>(dim)] = offset;
    limit[static_cast<size_t>(dim)] = offset + size;
    cts.push_back(a.linear[i] ? a.b.slice(a.ct[0], start, limit, strides) : nullptr);
    offset += size;
  }
  return cts;
}

// The operand's part: undo negative edge padding (pad by its negation: what was cut
// off comes back as zeros), crop positive edge padding, and step over interior padding.
// The padding value's part: everything else.
std::vector<Value*> padTranspose(TransposeArgs& a) {
  const Shape& in = operandShape(a, 0);
  Dims low = attrDims(a.op, "edge_padding_low");
  Dims high = attrDims(a.op, "edge_padding_high");
  Dims interior = attrDims(a.op, "interior_padding");
  Dims unLow(in.size()), unHigh(in.size()), noInterior(in.size(), 0), start(in.size(), 0), strides(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    unLow[d] = -low[d];
    unHigh[d] = -high[d];
    strides[d] = interior[d] + 1;
  }
  Value* zero = zeros(a.b, Type::scalar(a.ct[0]->type().dtype()));
  Value* uncropped = a.b.pad(a.ct[0], zero, unLow, unHigh, noInterior);
  const Shape& mid = uncropped->type().shape();
  Value* operand = a.b.slice(uncropped, start, mid, strides);
  Value* padding = nullptr;
  if (a.linear[1]) {
    Dims all;
    for (size_t d = 0; d < in.size(); ++d) all.push_back(static_cast<int64_t>(d));
    padding = a.b.binary(O::Subtract, sum(a.b, a.ct[0], all), sum(a.b, operand, all));
  }
  return {a.linear[0] ? operand : nullptr, padding};
}

std::vector<Value*> startIndices(const TransposeArgs& a, size_t first) {
  return std::vector<Value*>(a.x.begin() + static_cast<ptrdiff_t>(first), a.x.end());
}

// dynamic_slice and dynamic_update_slice clamp their starts the same way, so the one's
// cotangent is written back (or read out) by the other at the same starts.
std::vector<Value*> dynamicSliceTranspose(TransposeArgs& a) {
  Value* base = zeros(a.b, a.op.operand(0)->type());
  std::vector<Value*> cts(a.op.numOperands(), nullptr);
  cts[0] = a.b.dynamicUpdateSlice(base, a.ct[0], startIndices(a, 1));
  return cts;
}

std::vector<Value*> dynamicUpdateSliceTranspose(TransposeArgs& a) {
  std::vector<Value*> cts(a.op.numOperands(), nullptr);
  const Type& update = a.op.operand(1)->type();
  std::vector<Value*> starts = startIndices(a, 2);
  if (a.linear[0]) cts[0] = a.b.dynamicUpdateSlice(a.ct[0], zeros(a.b, update), starts);
  if (a.linear[1]) cts[1] = a.b.dynamicSlice(a.ct[0], starts, update.shape());
  return cts;
}

// A gather's cotangent scatter-adds into zeros of the operand. Gather clamps each slice
// into the operand while scatter skips updates that do not fit, so the indices are
// clamped first, as gather would, and the scatter sees slices that always fit.
std::vector<Value*> gatherTranspose(TransposeArgs& a) {
  Builder& b = a.b;
  GatherDims g = GatherDims::fromAttr(a.op.attr("dimension_numbers"));
  Dims sizes = attrDims(a.op, "slice_sizes");
  const Type& operand = a.op.operand(0)->type();
  Value* indices = a.x[1];
  const Type& it = indices->type();
  Value* upper = largestStarts(b, it, g.indexVectorDim, g.startIndexMap, operand.shape(), sizes);
  Value* clamped = b.clamp(zeros(b, it), indices, upper);
  ScatterDims s = g.asScatter();
  Value* ct = b.scatter({zeros(b, operand)}, clamped, {a.ct[0]}, s,
                        [](Builder& c, const std::vector<Value*>& v) {
                          return std::vector<Value*>{c.binary(O::Add, v[0], v[1])};
                        })[0];
  return {ct, nullptr};
}

// The indices of take_along_axis along `dim`: for each element, the index vector (the
// trailing dimension) of the element `positions` names along `dim`, the others its own.
Value* takeAlongIndices(Builder& b, Value* positions, int64_t dim) {
  Shape shape = positions->type().shape();
  Shape column = shape;
  column.push_back(1);
  const Type ids = Type::tensor(positions->type().dtype(), column);
  std::vector<Value*> parts;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    parts.push_back(d == dim ? b.reshape(positions, column) : b.iota(ids, d));
  return b.concatenate(parts, static_cast<int64_t>(shape.size()));
}

// x's elements taken one by one at `indices` (takeAlongIndices): a gather of 1-element
// slices, linear in x (its transpose scatter-adds). Of an x without elements, there is
// no slice to take: the result is as empty.
Value* takeAlong(Builder& b, Value* x, Value* indices) {
  const int64_t rank = x->type().rank();
  if (x->type().numElements() == 0) {
    const Shape& s = indices->type().shape();
    return b.splat(Type::tensor(x->type().dtype(), Shape(s.begin(), s.end() - 1)), 0);
  }
  GatherDims g;
  for (int64_t d = 0; d < rank; ++d) {
    g.collapsedSliceDims.push_back(d);
    g.startIndexMap.push_back(d);
  }
  g.indexVectorDim = rank;
  return b.gather(x, indices, g, Dims(static_cast<size_t>(rank), 1));
}

// sort moves each element to where the comparator puts it, so a tangent moves with its
// element. As JAX does, the sort runs with an iota along its dimension as one more
// operand (the comparator takes its two elements and ignores them): the sorted iota is
// the permutation, each output's source position. Each float output's tangent is its
// operand's tangent taken along it. The new sort replaces the original.
std::vector<Value*> sortJvp(JvpArgs& a) {
  Builder& b = a.b;
  const Op& original = *a.y[0]->definingOp();  // the copy, its comparator's captures mapped
  const Type& type = a.x[0]->type();
  int64_t dim = a.op.attrOrDefault("dimension").asInt();
  if (dim < 0) dim += type.rank();
  const bool stable = a.op.attrOrDefault("is_stable").asBool();
  std::vector<Value*> inputs = a.x;
  inputs.push_back(b.iota(Type::tensor(DType::I64, type.shape()), dim));
  const Region& comparator = original.region(0);
  std::vector<Value*> sorted = b.sort(inputs, dim, stable, [&](Builder& c, const std::vector<Value*>& args) {
    return c.inlineRegion(comparator, std::vector<Value*>(args.begin(), args.end() - 2));
  });
  Value* indices = takeAlongIndices(b, sorted.back(), dim);
  std::vector<Value*> out;
  for (size_t i = 0; i < a.t.size(); ++i) {
    a.y[i] = sorted[i];
    out.push_back(a.t[i] ? takeAlong(b, a.t[i], indices) : nullptr);
  }
  return out;
}

// A tuple's tangent is the tuple of its elements' tangents (zeros where they are zero);
// get_tuple_element takes its element's. Their transposes take the cotangent apart and
// put it together again, zeros for the other elements.
std::vector<Value*> tupleJvp(JvpArgs& a) {
  bool any = false;
  for (Value* t : a.t) any |= t != nullptr;
  if (!any) return {nullptr};
  std::vector<Value*> elements;
  for (size_t i = 0; i < a.t.size(); ++i) elements.push_back(orZeros(a.b, a.t[i], a.x[i]));
  return {a.b.tuple(elements)};
}
std::vector<Value*> tupleTranspose(TransposeArgs& a) {
  std::vector<Value*> cts;
  for (size_t i = 0; i < a.op.numOperands(); ++i)
    cts.push_back(a.linear[i] ? a.b.getTupleElement(a.ct[0], static_cast<int64_t>(i)) : nullptr);
  return cts;
}

int64_t tupleIndex(const Op& op) { return op.attr("index").asInt(); }

std::vector<Value*> getTupleElementJvp(JvpArgs& a) {
  return {a.t[0] ? a.b.getTupleElement(a.t[0], tupleIndex(a.op)) : nullptr};
}
std::vector<Value*> getTupleElementTranspose(TransposeArgs& a) {
  const Type& tuple = a.op.operand(0)->type();
  std::vector<Value*> elements;
  for (size_t i = 0; i < tuple.elements().size(); ++i)
    elements.push_back(static_cast<int64_t>(i) == tupleIndex(a.op) ? a.ct[0] : zeros(a.b, tuple.elements()[i]));
  return {a.b.tuple(elements)};
}


// ---- batching: the batch dimension in front, every dimension number past it ----

std::vector<Value*> broadcastBatch(BatchArgs& a) {
  Shape out = batchedShape(a.size, a.op.result(0)->type().shape());
  return {a.b.broadcastInDim(a.x[0], out, pastBatch(attrDims(a.op, "broadcast_dimensions"), true))};
}

// The size of a slice's dimension, the same for every slice.
std::vector<Value*> getDimensionSizeBatch(BatchArgs& a) {
  NamedAttrList attrs = a.op.attrs();
  setAttr(attrs, "dimension", Attribute::integer(a.op.attr("dimension").asInt() + 1));
  return {batchedValue(a.b, rebuilt(a.b, a.op, a.x, attrs)[0], false, a.size)};
}

std::vector<Value*> reshapeBatch(BatchArgs& a) {
  return {a.b.reshape(a.x[0], batchedShape(a.size, a.op.result(0)->type().shape()))};
}

std::vector<Value*> transposeBatch(BatchArgs& a) {
  return {a.b.transpose(a.x[0], pastBatch(attrDims(a.op, "permutation"), true))};
}

std::vector<Value*> reverseBatch(BatchArgs& a) { return {a.b.reverse(a.x[0], pastBatch(attrDims(a.op, "dimensions")))}; }

std::vector<Value*> sliceBatch(BatchArgs& a) {
  Dims start = attrDims(a.op, "start_indices"), limit = attrDims(a.op, "limit_indices"),
       strides = attrDims(a.op, "strides");
  start.insert(start.begin(), 0);
  limit.insert(limit.begin(), a.size);
  strides.insert(strides.begin(), 1);
  return {a.b.slice(a.x[0], start, limit, strides)};
}

std::vector<Value*> concatenateBatch(BatchArgs& a) {
  std::vector<Value*> inputs;
  for (size_t i = 0; i < a.x.size(); ++i) inputs.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
  return {a.b.concatenate(inputs, a.op.attr("dimension").asInt() + 1)};
}

std::vector<Value*> padBatch(BatchArgs& a) {
  if (a.batched[1]) unsupportedRule(a.op, "vmap", "a batched padding value");
  Dims low = attrDims(a.op, "edge_padding_low"), high = attrDims(a.op, "edge_padding_high"),
       interior = attrDims(a.op, "interior_padding");
  low.insert(low.begin(), 0);
  high.insert(high.begin(), 0);
  interior.insert(interior.begin(), 0);
  return {a.b.pad(a.x[0], a.x[1], low, high, interior)};
}

// With shared starts the batch dimension is sliced whole (a start of 0, the full size).
// Batched start indices, one row per slice: [size, rank] in i64, each start broadcast
// (a shared one) or as it is (a batched one), clamped as dynamic slices clamp them so
// that the window of `sizes` fits in `shape`.
Value* startRows(BatchArgs& a, size_t first, const Shape& shape, const Dims& sizes) {
  Builder& b = a.b;
  const Type column = Type::tensor(DType::I64, {a.size, 1});
  std::vector<Value*> columns;
  for (size_t i = first; i < a.x.size(); ++i) {
    const size_t d = i - first;
    Value* start = b.convert(batchedValue(b, a.x[i], a.batched[i], a.size), DType::I64);
    Value* limit = b.splat(Type::tensor(DType::I64, {a.size}), static_cast<double>(shape[d] - sizes[d]));
    start = b.clamp(b.splat(Type::scalar(DType::I64), 0), start, limit);
    columns.push_back(b.reshape(start, column.shape()));
  }
  return b.concatenate(columns, 1);
}

// A window at one start row per slice ([size, rank] starts) of a batched operand of
// rank + 1: the batch a batching dimension of operand and starts, every other dimension
// a window dimension. The scatter of dynamic updates writes where it reads (asScatter).
GatherDims windowPerSlice(int64_t rank) {
  GatherDims g;
  g.operandBatchingDims = g.startIndicesBatchingDims = {0};
  for (int64_t d = 1; d <= rank; ++d) {
    g.startIndexMap.push_back(d);
    g.offsetDims.push_back(d);
  }
  g.indexVectorDim = 1;
  return g;
}

// Shared starts: one dynamic slice of the batched operand, from 0 along the batch.
// Batched starts: a gather with the batch as a batching dimension of operand and starts.
std::vector<Value*> dynamicSliceBatch(BatchArgs& a) {
  bool batchedStarts = false;
  for (size_t i = 1; i < a.x.size(); ++i) batchedStarts |= a.batched[i];
  const Dims sizes = attrDims(a.op, "slice_sizes");
  Value* operand = batchedValue(a.b, a.x[0], a.batched[0], a.size);
  if (!batchedStarts) {
    std::vector<Value*> starts(a.x.begin() + 1, a.x.end());
    starts.insert(starts.begin(), zeros(a.b, a.x[1]->type()));
    return {a.b.dynamicSlice(operand, starts, batchedShape(a.size, sizes))};
  }
  Value* starts = startRows(a, 1, a.op.operand(0)->type().shape(), sizes);
  return {a.b.gather(operand, starts, windowPerSlice(static_cast<int64_t>(sizes.size())), batchedShape(1, sizes))};
}

// Shared starts: one dynamic update of the batched operand, from 0 along the batch.
// Batched starts: a scatter that replaces, the batch a batching dimension of operand and
// starts (clamped first: a scatter drops what a dynamic update slice moves inside).
std::vector<Value*> dynamicUpdateSliceBatch(BatchArgs& a) {
  bool batchedStarts = false;
  for (size_t i = 2; i < a.x.size(); ++i) batchedStarts |= a.batched[i];
  Value* operand = batchedValue(a.b, a.x[0], a.batched[0], a.size);
  Value* update = batchedValue(a.b, a.x[1], a.batched[1], a.size);
  if (!batchedStarts) {
    std::vector<Value*> starts(a.x.begin() + 2, a.x.end());
    starts.insert(starts.begin(), zeros(a.b, a.x[2]->type()));
    return {a.b.dynamicUpdateSlice(operand, update, starts)};
  }
  const Shape& sizes = a.op.operand(1)->type().shape();
  Value* starts = startRows(a, 2, a.op.operand(0)->type().shape(), sizes);
  return a.b.scatter({operand}, starts, {update}, windowPerSlice(static_cast<int64_t>(sizes.size())).asScatter(),
                     [](Builder&, const std::vector<Value*>& v) { return std::vector<Value*>{v[1]}; });
}

std::vector<Value*> gatherBatch(BatchArgs& a) {
  GatherDims g = GatherDims::fromAttr(a.op.attr("dimension_numbers"));
  const bool implicit = g.indexVectorDim == a.op.operand(1)->type().rank();
  Value* operand = batchedValue(a.b, a.x[0], a.batched[0], a.size);
  Value* indices = batchedValue(a.b, a.x[1], a.batched[1], a.size);
  GatherDims e;
  e.offsetDims = pastBatch(g.offsetDims);
  e.collapsedSliceDims = pastBatch(g.collapsedSliceDims);
  e.operandBatchingDims = pastBatch(g.operandBatchingDims, true);
  e.startIndicesBatchingDims = pastBatch(g.startIndicesBatchingDims, true);
  e.startIndexMap = pastBatch(g.startIndexMap);
  e.indexVectorDim = implicit ? indices->type().rank() : g.indexVectorDim + 1;
  Dims sizes = attrDims(a.op, "slice_sizes");
  sizes.insert(sizes.begin(), 1);
  Attribute sorted = a.op.attr("indices_are_sorted");
  return {a.b.gather(operand, indices, e, sizes, sorted && sorted.asBool() && !a.batched[1])};
}

}  // namespace

void addMovementRules(OpTable<OpRules>& t) {
  t[O::BroadcastInDim] = {&linearJvp, &broadcastTranspose};
  t[O::Reshape] = {&linearJvp, &reshapeTranspose};
  t[O::Transpose] = {&linearJvp, &transposeTranspose};
  t[O::Reverse] = {&linearJvp, &reverseTranspose};
  t[O::Slice] = {&linearJvp, &sliceTranspose};
  t[O::Concatenate] = {&linearJvp, &concatenateTranspose};
  t[O::Pad] = {&linearJvp, &padTranspose};
  t[O::DynamicSlice] = {&linearJvp, &dynamicSliceTranspose};
  t[O::DynamicUpdateSlice] = {&linearJvp, &dynamicUpdateSliceTranspose};
  t[O::Gather] = {&linearJvp, &gatherTranspose};
  t[O::Sort].jvp = &sortJvp;
  t[O::Tuple] = {&tupleJvp, &tupleTranspose, nullptr, &everyOperandBatched};
  t[O::GetTupleElement] = {&getTupleElementJvp, &getTupleElementTranspose, nullptr, &everyOperandBatched};
  t[O::GetDimensionSize].batch = &getDimensionSizeBatch;
  t[O::BroadcastInDim].batch = &broadcastBatch;
  t[O::Reshape].batch = &reshapeBatch;
  t[O::Transpose].batch = &transposeBatch;
  t[O::Reverse].batch = &reverseBatch;
  t[O::Slice].batch = &sliceBatch;
  t[O::Concatenate].batch = &concatenateBatch;
  t[O::Pad].batch = &padBatch;
  t[O::DynamicSlice].batch = &dynamicSliceBatch;
  t[O::DynamicUpdateSlice].batch = &dynamicUpdateSliceBatch;
  t[O::Gather].batch = &gatherBatch;
}

}  // namespace kiln::transforms
