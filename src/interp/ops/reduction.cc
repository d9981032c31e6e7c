// Kernels: the region-based reductions reduce, reduce_window and select_and_scatter,
// plus map and chlo.scan. The spec leaves the order of a reduction open; kiln's is that
// of ir/reduction_order.h for reduce, and a left fold over each window in row-major
// order for the others (fold.h).
#include <cstring>

#include "interp/ops/fold.h"
#include "ir/attr_records.h"
#include "ir/ops/chlo.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

HostValues reduce(const Op& op, const HostValues& v, EvalContext& ctx) {
  const size_t n = v.size() / 2;
  HostValues inputs(v.begin(), v.begin() + static_cast<ptrdiff_t>(n));
  HostValues inits(v.begin() + static_cast<ptrdiff_t>(n), v.end());
  const Shape& shape = inputs[0].tensor().shape();
  std::vector<int64_t> dims = op.attr("dimensions").asInts();
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
  std::vector<int64_t> strides = stridesOf(shape);

  // Offsets of the reduced elements (row-major over the reduced dims) from a kept index.
  Shape reducedShape, keptShape;
  std::vector<int64_t> reducedStrides, keptStrides;
  for (size_t d = 0; d < shape.size(); ++d) {
    (reduced[d] ? reducedShape : keptShape).push_back(shape[d]);
    (reduced[d] ? reducedStrides : keptStrides).push_back(strides[d]);
  }
  std::vector<int64_t> offsets;
  if (numElements(reducedShape) > 0) {
    std::vector<int64_t> idx(reducedShape.size(), 0);
    do offsets.push_back(ravel(idx, reducedStrides));
    while (nextIndex(idx, reducedShape));
  }
  std::vector<int64_t> kept;
  return foldWindows(op, ctx, inputs, inits, [&](int64_t out, std::vector<int64_t>& indices) {
    unravel(out, keptShape, kept);
    int64_t base = ravel(kept, keptStrides);
    for (int64_t off : offsets) indices.push_back(base + off);
  }, FoldOrder::Lanes);
}

// For each dimension, the input coordinate that (result coordinate, window coordinate)
// reads, or -1 where the window is over padding or a base-dilation hole.
struct WindowPlan {
  Shape windowShape;
  std::vector<std::vector<int64_t>> coord;  // [dim][out * window + w]
  std::vector<int64_t> inputStrides;
  Shape resultShape;
};

WindowPlan planWindows(const Shape& inputShape, const Shape& resultShape, const Shape& windowShape,
                       const std::vector<int64_t>& strides, const std::vector<int64_t>& baseDilations,
                       const std::vector<int64_t>& windowDilations,
                       const std::vector<std::pair<int64_t, int64_t>>& padding) {
  WindowPlan p{windowShape, {}, stridesOf(inputShape), resultShape};
  for (size_t d = 0; d < inputShape.size(); ++d) {
    std::vector<int64_t> c(static_cast<size_t>(resultShape[d] * windowShape[d]), -1);
    int64_t dilatedSize = inputShape[d] == 0 ? 0 : (inputShape[d] - 1) * baseDilations[d] + 1;
    for (int64_t o = 0; o < resultShape[d]; ++o)
      for (int64_t w = 0; w < windowShape[d]; ++w) {
        int64_t q = o * strides[d] + w * windowDilations[d] - padding[d].first;
        if (q >= 0 && q < dilatedSize && q % baseDilations[d] == 0)
          c[static_cast<size_t>(o * windowShape[d] + w)] = q / baseDilations[d];
      }
    p.coord.push_back(std::move(c));
  }
  return p;
}

// Appends the input indices of window `out` (row-major over the window) to `indices`.
void windowIndices(const WindowPlan& p, int64_t out, std::vector<int64_t>& outIndex,
                   std::vector<int64_t>& w, std::vector<int64_t>& indices) {
  unravel(out, p.resultShape, outIndex);
  if (numElements(p.windowShape) == 0) return;
  w.assign(p.windowShape.size(), 0);
  do {
    int64_t linear = 0;
    for (size_t d = 0; d < w.size(); ++d) {
      int64_t c = p.coord[d][static_cast<size_t>(outIndex[d] * p.windowShape[d] + w[d])];
      if (c < 0) {
        linear = -1;
        break;
      }
      linear += c * p.inputStrides[d];
    }
    indices.push_back(linear);
  } while (nextIndex(w, p.windowShape));
}

HostValues reduceWindow(const Op& op, const HostValues& v, EvalContext& ctx) {
  const size_t n = v.size() / 2;
  HostValues inputs(v.begin(), v.begin() + static_cast<ptrdiff_t>(n));
  HostValues inits(v.begin() + static_cast<ptrdiff_t>(n), v.end());
  const Shape& shape = inputs[0].tensor().shape();
  const Window win = Window::ofReduceWindow(op, static_cast<int64_t>(shape.size()));
  WindowPlan plan = planWindows(shape, op.result(0)->type().shape(), win.dimensions, win.strides,
                                win.baseDilations, win.windowDilations, win.padding);
  std::vector<int64_t> outIndex, w;
  return foldWindows(op, ctx, inputs, inits, [&](int64_t out, std::vector<int64_t>& indices) {
    windowIndices(plan, out, outIndex, w, indices);
  });
}

// Each source element goes to the operand element its window selects (select keeps its
// first argument when true); the scatter body accumulates onto the init value in
// source order. Padding is never selected.
HostValues selectAndScatter(const Op& op, const HostValues& v, EvalContext& ctx) {
  const Literal& operand = v[0].tensor();
  const Literal& source = v[1].tensor();
  const Literal& init = v[2].tensor();
  const Shape& shape = operand.shape();
  const size_t rank = shape.size();
  // select_and_scatter has no dilations: the window's defaults (1) apply.
  const Window win = Window::ofReduceWindow(op, static_cast<int64_t>(rank));
  WindowPlan plan = planWindows(shape, source.shape(), win.dimensions, win.strides, win.baseDilations,
                                win.windowDilations, win.padding);
  const Region& selectBody = op.region(0);

  // Which operand element each source element scatters to (-1: an empty window).
  std::vector<int64_t> target(static_cast<size_t>(source.numElements()), -1);
  std::vector<int64_t> outIndex, w, indices;
  HostValues args(2);
  for (int64_t s = 0; s < source.numElements(); ++s) {
    indices.clear();
    windowIndices(plan, s, outIndex, w, indices);
    int64_t selected = -1;
    for (int64_t i : indices) {
      if (i < 0) continue;
      if (selected < 0) {
        selected = i;
        args[0] = elementAt(operand, i);
        continue;
      }
      args[1] = elementAt(operand, i);
      if (!ctx.runRegion(selectBody, args).at(0).tensor().boolAt(0)) {
        selected = i;
        args[0] = args[1];
      }
    }
    target[static_cast<size_t>(s)] = selected;
  }
  // Invert: the source elements of each operand element, in source order.
  std::vector<std::vector<int64_t>> sourcesOf(static_cast<size_t>(operand.numElements()));
  for (size_t s = 0; s < target.size(); ++s)
    if (target[s] >= 0) sourcesOf[static_cast<size_t>(target[s])].push_back(static_cast<int64_t>(s));
  return foldWindows(op, ctx, {source}, {init}, [&](int64_t out, std::vector<int64_t>& idx) {
    const auto& s = sourcesOf[static_cast<size_t>(out)];
    idx.insert(idx.end(), s.begin(), s.end());
  });
}

HostValues map(const Op& op, const HostValues& v, EvalContext& ctx) {
  Literal out(op.result(0)->type());
  HostValues args(v.size());
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
    for (size_t k = 0; k < v.size(); ++k) args[k] = elementAt(v[k].tensor(), i);
    setElement(out, i, ctx.runRegion(op.region(0), args).at(0).tensor());
  }
  return {out};
}

// ---- chlo.scan ----

// Bytes of every element of `lit` (expanding a splat into `holder`).
const uint8_t* denseBytes(const Literal& lit, Literal& holder) {
  if (!lit.isSplat()) return lit.storage();
  holder = lit;
  return holder.mutableStorage();
}

// The sizes around `dim`: outer elements, and inner bytes of one step along `dim`.
std::pair<int64_t, size_t> splitAt(const Shape& shape, int64_t dim, DType dtype) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(dim) + 1; d < shape.size(); ++d) inner *= shape[d];
  return {outer, static_cast<size_t>(inner) * static_cast<size_t>(storageBytes(dtype))};
}

// Slice `t` of `lit` along `dim`, with `dim` removed.
Literal sliceAlong(const Literal& lit, int64_t dim, int64_t t) {
  Shape shape = lit.shape();
  const int64_t len = shape[static_cast<size_t>(dim)];
  auto [outer, innerBytes] = splitAt(shape, dim, lit.dtype());
  shape.erase(shape.begin() + dim);
  Literal holder;
  const uint8_t* src = denseBytes(lit, holder);
  std::vector<uint8_t> bytes(static_cast<size_t>(outer) * innerBytes);
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(bytes.data() + static_cast<size_t>(o) * innerBytes,
                src + static_cast<size_t>(o * len + t) * innerBytes, innerBytes);
  return Literal::fromStorage(Type::tensor(lit.dtype(), shape), std::move(bytes));
}

// Writes `slice` as slice `t` of `out` along `dim`.
void placeAlong(Literal& out, int64_t dim, int64_t t, const Literal& slice) {
  const int64_t len = out.shape()[static_cast<size_t>(dim)];
  auto [outer, innerBytes] = splitAt(out.shape(), dim, out.dtype());
  Literal holder;
  const uint8_t* src = denseBytes(slice, holder);
  uint8_t* dst = out.mutableStorage();
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(dst + static_cast<size_t>(o * len + t) * innerBytes, src + static_cast<size_t>(o) * innerBytes,
                innerBytes);
}

// chlo.scan: operands are inputs then inits (operandSegmentSizes); the body maps
// (input slices..., carries...) to (output slices..., new carries...); results are the
// output slices stacked along `dimension`, then the final carries.
HostValues scan(const Op& op, const HostValues& v, EvalContext& ctx) {
  const size_t numInputs = static_cast<size_t>(op.attr("operandSegmentSizes").asInts()[0]);
  const size_t numInits = v.size() - numInputs;
  const size_t numOutputs = op.numResults() - numInits;
  const int64_t dim = op.attr("dimension").asInt();
  Attribute reverseAttr = op.attr("is_reverse");
  const bool reverse = reverseAttr && reverseAttr.asBool();
  const int64_t length = v[0].tensor().shape()[static_cast<size_t>(dim)];

  HostValues outputs;
  for (size_t i = 0; i < numOutputs; ++i) outputs.emplace_back(Literal(op.result(i)->type()));
  HostValues carries(v.begin() + static_cast<ptrdiff_t>(numInputs), v.end());
  HostValues args(numInputs + numInits);
  for (int64_t step = 0; step < length; ++step) {
    ctx.checkTime();
    int64_t t = reverse ? length - 1 - step : step;
    for (size_t i = 0; i < numInputs; ++i) args[i] = sliceAlong(v[i].tensor(), dim, t);
    for (size_t j = 0; j < numInits; ++j) args[numInputs + j] = std::move(carries[j]);
    HostValues r = ctx.runRegion(op.region(0), args);
    for (size_t i = 0; i < numOutputs; ++i) placeAlong(outputs[i].tensor(), dim, t, r[i].tensor());
    for (size_t j = 0; j < numInits; ++j) carries[j] = std::move(r[numOutputs + j]);
  }
  outputs.insert(outputs.end(), carries.begin(), carries.end());
  return outputs;
}

}  // namespace

void addReductionKernels(KernelTable& t) {
  t.set(ops::Reduce, &reduce);
  t.set(ops::ReduceWindow, &reduceWindow);
  t.set(ops::SelectAndScatter, &selectAndScatter);
  t.set(ops::Map, &map);
  t.set(ops::ChloScan, &scan);
}

}  // namespace kiln::interp
