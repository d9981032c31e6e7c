// Kernels: gather, dynamic_gather and scatter. Both walk the "batch" (scatter) indices
// of the index tensor; each one picks a start in the operand, and a window of offsets
// around it is copied (gather) or combined in (scatter).
#include <algorithm>

#include "interp/ops/fold.h"
#include "interp/ops/movement.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

// Dimensions of `rank` that are not in `excluded`, in order.
std::vector<int64_t> dimsExcept(int64_t rank, const std::vector<int64_t>& a,
                                const std::vector<int64_t>& b = {}) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      out.push_back(d);
  return out;
}

std::vector<int64_t> pick(const std::vector<int64_t>& v, const std::vector<int64_t>& positions) {
  std::vector<int64_t> out;
  for (int64_t p : positions) out.push_back(v[static_cast<size_t>(p)]);
  return out;
}

// Reads index vectors out of the index tensor: for a batch index b (the index tensor's
// dimensions without index_vector_dim), component k is
// indices[b with k inserted at index_vector_dim].
class IndexVectors {
 public:
  IndexVectors(const Literal& indices, int64_t indexVectorDim)
      : indices_(indices), ivd_(indexVectorDim), strides_(stridesOf(indices.shape())) {
    for (int64_t d = 0; d < indices.type().rank(); ++d)
      if (d != ivd_) {
        batchShape_.push_back(indices.type().dim(d));
        batchStrides_.push_back(strides_[static_cast<size_t>(d)]);
      }
    componentStride_ = ivd_ < indices.type().rank() ? strides_[static_cast<size_t>(ivd_)] : 0;
  }
  const Shape& batchShape() const { return batchShape_; }
  // Where the index vector of batch index `b` starts; component k is at + k * stride.
  int64_t at(const std::vector<int64_t>& b) const { return ravel(b, batchStrides_); }
  int64_t component(int64_t at, int64_t k) const { return indexAt(indices_, at + k * componentStride_); }
  // Position in the batch index of index-tensor dimension `d` (d != index_vector_dim).
  size_t batchPosition(int64_t d) const { return static_cast<size_t>(d < ivd_ ? d : d - 1); }

 private:
  const Literal& indices_;
  int64_t ivd_;
  std::vector<int64_t> strides_;
  Shape batchShape_;
  std::vector<int64_t> batchStrides_;
  int64_t componentStride_ = 0;
};

// ---- gather ----

Literal gather(const Op& op, const Literal& operand, const Literal& indices,
               const std::vector<int64_t>& sliceSizes, EvalContext& ctx) {
  const GatherDims dn = GatherDims::fromAttr(op.attr("dimension_numbers"));
  const std::vector<int64_t>& offsetDims = dn.offsetDims;
  const std::vector<int64_t>& collapsed = dn.collapsedSliceDims;
  const std::vector<int64_t>& operandBatching = dn.operandBatchingDims;
  const std::vector<int64_t>& indicesBatching = dn.startIndicesBatchingDims;
  const std::vector<int64_t>& startIndexMap = dn.startIndexMap;
  const IndexVectors vectors(indices, dn.indexVectorDim);

  const Type& type = op.result(0)->type();
  Literal out(type);
  if (out.numElements() == 0) return out;
  const std::vector<int64_t> resultStrides = stridesOf(type.shape());
  const std::vector<int64_t> opStrides = stridesOf(operand.shape());
  const std::vector<int64_t> batchDims = dimsExcept(type.rank(), offsetDims);
  const std::vector<int64_t> windowDims = dimsExcept(operand.type().rank(), collapsed, operandBatching);

  // The window: offset_dims[k] of the result walks windowDims[k] of the operand.
  const Shape windowShape = pick(type.shape(), offsetDims);
  const std::vector<int64_t> windowResultStrides = pick(resultStrides, offsetDims);
  const std::vector<int64_t> windowOperandStrides = pick(opStrides, windowDims);
  const std::vector<int64_t> batchResultStrides = pick(resultStrides, batchDims);

  ElementCopier copier(operand, out);
  std::vector<int64_t> b(vectors.batchShape().size(), 0);
  int64_t step = 0;
  do {
    if ((++step & 255) == 0) ctx.checkTime();
    const int64_t at = vectors.at(b);
    int64_t src = 0;
    for (size_t k = 0; k < startIndexMap.size(); ++k) {
      const size_t d = static_cast<size_t>(startIndexMap[k]);
      // Starts are clamped so that the whole slice lies inside the operand.
      const int64_t limit = std::max<int64_t>(operand.shape()[d] - sliceSizes[d], 0);
      src += std::clamp<int64_t>(vectors.component(at, static_cast<int64_t>(k)), 0, limit) * opStrides[d];
    }
    for (size_t i = 0; i < operandBatching.size(); ++i)
      src += b[vectors.batchPosition(indicesBatching[i])] * opStrides[static_cast<size_t>(operandBatching[i])];
    copyBlock(copier, windowShape, ravel(b, batchResultStrides), windowResultStrides, src,
              windowOperandStrides);
  } while (nextIndex(b, vectors.batchShape()));
  return out;
}

HostValues gatherKernel(const Op& op, const HostValues& v, EvalContext& ctx) {
  return {gather(op, v[0].tensor(), v[1].tensor(), op.attr("slice_sizes").asInts(), ctx)};
}

// dynamic_gather: gather with slice_sizes as an operand; the result type (static) must
// have the slice sizes the operand asks for.
HostValues dynamicGather(const Op& op, const HostValues& v, EvalContext& ctx) {
  const Literal& operand = v[0].tensor();
  std::vector<int64_t> sizes = indexList(v[2].tensor());
  const GatherDims dn = GatherDims::fromAttr(op.attr("dimension_numbers"));
  const std::vector<int64_t>& offsetDims = dn.offsetDims;
  const std::vector<int64_t> windowDims =
      dimsExcept(operand.type().rank(), dn.collapsedSliceDims, dn.operandBatchingDims);
  bool ok = sizes.size() == static_cast<size_t>(operand.type().rank()) && windowDims.size() == offsetDims.size();
  for (size_t d = 0; ok && d < sizes.size(); ++d) ok = sizes[d] >= 0 && sizes[d] <= operand.shape()[d];
  for (size_t k = 0; ok && k < windowDims.size(); ++k)
    ok = sizes[static_cast<size_t>(windowDims[k])] == op.result(0)->type().dim(offsetDims[k]);
  if (!ok) runtimeError(op, "slice_sizes do not match the operand and the result type");
  return {gather(op, operand, v[1].tensor(), sizes, ctx)};
}

// ---- scatter ----

// Whether the body just returns its update arguments (scatter as "set").
bool returnsUpdates(const Region& body, size_t n) {
  const Op* ret = body.terminator();
  if (!ret || body.size() != 1 || ret->numOperands() != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (ret->operand(i) != body.argument(n + i)) return false;
  return true;
}

HostValues scatter(const Op& op, const HostValues& v, EvalContext& ctx) {
  const size_t n = (v.size() - 1) / 2;
  const Region& body = op.region(0);
  std::vector<Literal> results, updates;
  for (size_t i = 0; i < n; ++i) {
    // Inputs and updates are promoted to the body's (and the results') element types.
    results.push_back(promoteTo(v[i].tensor(), op.result(i)->type().dtype()));
    updates.push_back(promoteTo(v[n + 1 + i].tensor(), body.argument(n + i)->type().dtype()));
  }
  const Literal& indices = v[n].tensor();
  const Shape& inputShape = results[0].shape();
  const Shape& updateShape = updates[0].shape();
  if (updates[0].numElements() == 0 || results[0].numElements() == 0) return {results.begin(), results.end()};

  const ScatterDims dn = ScatterDims::fromAttr(op.attr("scatter_dimension_numbers"));
  const std::vector<int64_t>& updateWindowDims = dn.updateWindowDims;
  const std::vector<int64_t>& inputBatching = dn.inputBatchingDims;
  const std::vector<int64_t>& indicesBatching = dn.scatterIndicesBatchingDims;
  const std::vector<int64_t>& toOperand = dn.scatterDimsToOperandDims;
  const IndexVectors vectors(indices, dn.indexVectorDim);
  const int64_t rank = static_cast<int64_t>(inputShape.size());
  const std::vector<int64_t> windowDims = dimsExcept(rank, dn.insertedWindowDims, inputBatching);
  const std::vector<int64_t> scatterDims = dimsExcept(static_cast<int64_t>(updateShape.size()), updateWindowDims);

  const std::vector<int64_t> inStrides = stridesOf(inputShape);
  const std::vector<int64_t> updStrides = stridesOf(updateShape);
  const Shape windowShape = pick(updateShape, updateWindowDims);
  const std::vector<int64_t> windowUpdStrides = pick(updStrides, updateWindowDims);
  const std::vector<int64_t> scatterUpdStrides = pick(updStrides, scatterDims);

  // The element combiner: plain copies for a "set" body, a typed loop for a single binary
  // op, else the body itself per element (the spec's order: update indices row-major).
  std::function<void(int64_t, int64_t)> apply;
  bool swapped = false;
  FoldKind kind = n == 1 ? simpleBinaryBody(body, swapped) : FoldKind::None;
  std::vector<ElementCopier> copiers;
  if (returnsUpdates(body, n)) {
    for (size_t i = 0; i < n; ++i) copiers.emplace_back(updates[i], results[i]);
    apply = [&](int64_t r, int64_t u) {
      for (const ElementCopier& c : copiers) c.copy(r, u);
    };
  } else if (kind != FoldKind::None && results[0].dtype() == updates[0].dtype()) {
    const DType dtype = results[0].dtype();
    results[0].mutableStorage();  // unshare now: the Readers below must see the Writer's buffer
    visitTypedFold(dtype, kind, [&](auto tag, auto k) {
      using T = typename decltype(tag)::type;
      constexpr FoldKind K = decltype(k)::value;
      apply = [&, dtype, w = Writer<T>(results[0]), rr = Reader<T>(results[0]),
               ru = Reader<T>(updates[0])](int64_t r, int64_t u) mutable {
        T cur = rr[r], upd = ru[u];
        w.set(r, roundToStorage(swapped ? combine<K>(upd, cur) : combine<K>(cur, upd), dtype));
      };
    });
  } else {
    apply = [&](int64_t r, int64_t u) {
      HostValues args;
      for (size_t i = 0; i < n; ++i) args.push_back(elementAt(results[i], r));
      for (size_t i = 0; i < n; ++i) args.push_back(elementAt(updates[i], u));
      HostValues outs = ctx.runRegion(body, args);
      for (size_t i = 0; i < n; ++i) setElement(results[i], r, outs.at(i).tensor());
    };
  }

  std::vector<int64_t> s(vectors.batchShape().size(), 0);  // update_scatter_index
  std::vector<int64_t> start(static_cast<size_t>(rank), 0);
  std::vector<int64_t> w(windowShape.size(), 0);
  int64_t step = 0;
  do {
    ctx.checkTime();
    const int64_t at = vectors.at(s);
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < toOperand.size(); ++k)
      start[static_cast<size_t>(toOperand[k])] = vectors.component(at, static_cast<int64_t>(k));
    for (size_t i = 0; i < inputBatching.size(); ++i)
      start[static_cast<size_t>(inputBatching[i])] += s[vectors.batchPosition(indicesBatching[i])];
    // Dimensions without a window must be in bounds for the whole window; the window
    // dimensions are checked per element, and out-of-bounds elements are skipped.
    bool inside = true;
    for (int64_t d = 0; d < rank && inside; ++d)
      if (std::find(windowDims.begin(), windowDims.end(), d) == windowDims.end())
        inside = start[static_cast<size_t>(d)] >= 0 && start[static_cast<size_t>(d)] < inputShape[static_cast<size_t>(d)];
    if (!inside) continue;
    const int64_t updBase = ravel(s, scatterUpdStrides);
    std::fill(w.begin(), w.end(), 0);
    do {
      if ((++step & 1023) == 0) ctx.checkTime();
      int64_t r = 0;
      bool ok = true;
      for (int64_t d = 0; d < rank; ++d) r += start[static_cast<size_t>(d)] * inStrides[static_cast<size_t>(d)];
      for (size_t k = 0; k < windowDims.size() && ok; ++k) {
        const size_t d = static_cast<size_t>(windowDims[k]);
        const int64_t idx = start[d] + w[k];
        ok = idx >= 0 && idx < inputShape[d];
        r += w[k] * inStrides[d];
      }
      if (ok) apply(r, updBase + ravel(w, windowUpdStrides));
    } while (nextIndex(w, windowShape));
  } while (nextIndex(s, vectors.batchShape()));
  return {results.begin(), results.end()};
}

}  // namespace

void addGatherScatterKernels(KernelTable& t) {
  t.set(ops::Gather, &gatherKernel);
  t.set(ops::DynamicGather, &dynamicGather);
  t.set(ops::Scatter, &scatter);
}

}  // namespace kiln::interp
