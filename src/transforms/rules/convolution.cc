// Autodiff rules of stablehlo.convolution. It is bilinear, so its jvp is two
// convolutions, and its transposes are convolutions too (as in JAX): the lhs cotangent
// convolves the result's cotangent with the spatially reversed kernel, its in and out
// features swapped, strides and lhs dilation trading places; the kernel's cotangent
// convolves lhs with the result's cotangent, batch and feature roles swapped, with the
// groups carried as batch groups (and back).
//
// Batching folds the vmap batch into a dimension the convolution already keeps apart, as
// JAX does: a batched lhs into its batch dimension, a batched kernel into its output
// features, both into feature groups (each slice convolves only with its own kernel);
// the result's batch comes back out of the output batch or feature dimension.
#include <algorithm>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

namespace O = ops;

struct Conv {
  ConvDims dims;
  Window window;
  int64_t featureGroups, batchGroups;
};

Conv convOf(const Op& op) {
  Conv c;
  c.dims = ConvDims::fromAttr(op.attr("dimension_numbers"));
  c.window = Window::ofConvolution(op, static_cast<int64_t>(c.dims.inputSpatial.size()));
  c.featureGroups = op.attrOrDefault("feature_group_count").asInt();
  c.batchGroups = op.attrOrDefault("batch_group_count").asInt();
  return c;
}

Value* convolve(Builder& b, Value* lhs, Value* rhs, const Conv& c, DType out) {
  return b.convolution(lhs, rhs, c.dims, c.window, c.featureGroups, c.batchGroups, out);
}

std::vector<Value*> convolutionJvp(JvpArgs& a) {
  Conv c = convOf(a.op);
  DType out = a.y[0]->type().dtype();
  Value* l = a.t[0] ? convolve(a.b, a.t[0], a.x[1], c, out) : nullptr;
  Value* r = a.t[1] ? convolve(a.b, a.x[0], a.t[1], c, out) : nullptr;
  return {addTangents(a.b, l, r)};
}

// The extent of `size` points `dilation` apart.
int64_t dilated(int64_t size, int64_t dilation) { return size == 0 ? 0 : 1 + dilation * (size - 1); }

Dims sizesAt(const Shape& shape, const Dims& dims) {
  Dims out;
  for (int64_t d : dims) out.push_back(shape[static_cast<size_t>(d)]);
  return out;
}

// Splits dimension `d` of `x` into (groups, size / groups), the groups first.
Value* splitDimension(Builder& b, Value* x, int64_t d, int64_t groups) {
  Shape s = x->type().shape();
  int64_t size = s[static_cast<size_t>(d)];
  s[static_cast<size_t>(d)] = size / groups;
  s.insert(s.begin() + d, groups);
  return b.reshape(x, s);
}

// Moves dimension `from` of `x` in front of dimension `into` (numbered without `from`)
// and merges the two.
Value* mergeDimension(Builder& b, Value* x, int64_t from, int64_t into) {
  const Shape& s = x->type().shape();
  Dims perm;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d)
    if (d != from) perm.push_back(d);
  perm.insert(perm.begin() + into, from);
  Shape merged;
  for (int64_t d : perm) merged.push_back(s[static_cast<size_t>(d)]);
  merged[static_cast<size_t>(into)] *= merged[static_cast<size_t>(into) + 1];
  merged.erase(merged.begin() + into + 1);
  return b.reshape(b.transpose(x, perm), merged);
}

std::vector<Value*> convolutionTranspose(TransposeArgs& a) {
  if (a.linear[0] && a.linear[1]) unsupportedRule(a.op, "transpose", "both operands are tangents");
  Conv c = convOf(a.op);
  for (bool r : c.window.reversal)
    if (r) unsupportedRule(a.op, "transpose", "window_reversal");
  if (c.featureGroups > 1 && c.batchGroups > 1) unsupportedRule(a.op, "transpose", "both group counts above 1");
  const ConvDims& d = c.dims;
  const Type& lt = a.op.operand(0)->type();
  const Type& rt = a.op.operand(1)->type();
  Value* ct = a.ct[0];
  const size_t n = d.inputSpatial.size();
  Dims in = sizesAt(lt.shape(), d.inputSpatial), window = sizesAt(rt.shape(), d.kernelSpatial),
       out = sizesAt(ct->type().shape(), d.outputSpatial);
  const Window& w = c.window;
  Builder& b = a.b;

  if (a.linear[0]) {
    Conv t;
    t.dims = {d.outputBatch, d.outputFeature, d.outputSpatial, d.kernelOutputFeature, d.kernelInputFeature,
              d.kernelSpatial, d.inputBatch, d.inputFeature, d.inputSpatial};
    const int64_t groups = std::max(c.featureGroups, c.batchGroups);
    t.featureGroups = groups;
    t.batchGroups = 1;
    t.window.strides = w.baseDilations;
    t.window.baseDilations = w.strides;
    t.window.windowDilations = w.windowDilations;
    t.window.reversal.assign(n, false);
    for (size_t i = 0; i < n; ++i)
      t.window.padding.push_back(transposedPadding(in[i], window[i], w.strides[i], out[i], w.padding[i].first,
                                                   w.baseDilations[i], w.windowDilations[i]));
    Value* kernel = b.reverse(a.x[1], d.kernelSpatial);
    if (groups > 1) {
      // The groups leave the output features and join the input features.
      kernel = splitDimension(b, kernel, d.kernelOutputFeature, groups);
      kernel = mergeDimension(b, kernel, d.kernelOutputFeature, d.kernelInputFeature);
    }
    Value* r = convolve(b, ct, kernel, t, lt.dtype());
    if (c.batchGroups > 1) {
      // Batch groups came out as feature groups: move them back into the batch.
      r = splitDimension(b, r, d.inputFeature, c.batchGroups);
      r = mergeDimension(b, r, d.inputFeature, d.inputBatch);
    }
    return {r, nullptr};
  }
  Conv t;
  t.dims = {d.inputFeature, d.inputBatch, d.inputSpatial, d.outputBatch, d.outputFeature,
            d.outputSpatial, d.kernelInputFeature, d.kernelOutputFeature, d.kernelSpatial};
  t.featureGroups = c.batchGroups > 1 ? c.batchGroups : 1;
  t.batchGroups = c.featureGroups > 1 ? c.featureGroups : 1;
  t.window.strides = w.windowDilations;
  t.window.baseDilations = w.baseDilations;
  t.window.windowDilations = w.strides;
  t.window.reversal.assign(n, false);
  for (size_t i = 0; i < n; ++i) {
    int64_t low = w.padding[i].first;
    int64_t fromLhs = dilated(out[i], w.strides[i]) - dilated(in[i], w.baseDilations[i]);
    int64_t fromRhs = dilated(window[i], w.windowDilations[i]) - low - 1;
    t.window.padding.emplace_back(low, fromLhs + fromRhs);
  }
  return {nullptr, convolve(b, a.x[0], ct, t, rt.dtype())};
}

// ---- batching ----

// Merges dimension `d` of `x` with the one after it.
Value* mergeWithNext(Builder& b, Value* x, int64_t d) {
  Shape s = x->type().shape();
  s[static_cast<size_t>(d)] *= s[static_cast<size_t>(d) + 1];
  s.erase(s.begin() + d + 1);
  return b.reshape(x, s);
}

// Moves dimension `d` of `x` to the front.
Value* toFront(Builder& b, Value* x, int64_t d) {
  if (d == 0) return x;
  Dims perm = {d};
  for (int64_t i = 0; i < x->type().rank(); ++i)
    if (i != d) perm.push_back(i);
  return b.transpose(x, perm);
}

// `x` (batched: the batch in front) with the batch folded into dimension `into` (of the
// unbatched numbering). The dimension's `groups` stay outermost, as the convolution
// splits them, so each group takes the batch inside it: (groups, batch, size / groups).
Value* foldBatch(Builder& b, Value* x, int64_t into, int64_t groups) {
  if (groups == 1) return mergeDimension(b, x, 0, into);
  Value* split = splitDimension(b, x, into + 1, groups);
  return mergeWithNext(b, mergeDimension(b, split, 0, into + 1), into);
}

// The inverse on the result: dimension `from` of `y` holds (groups, batch, rest); returns
// `y` with the batch in front and (groups, rest) merged again.
Value* unfoldBatch(Builder& b, Value* y, int64_t from, int64_t groups, int64_t size) {
  if (groups == 1) return toFront(b, splitDimension(b, y, from, size), from);
  Value* split = splitDimension(b, splitDimension(b, y, from, groups), from + 1, size);
  return mergeWithNext(b, toFront(b, split, from + 1), from + 1);
}

std::vector<Value*> convolutionBatch(BatchArgs& a) {
  Conv c = convOf(a.op);
  if (c.featureGroups > 1 && c.batchGroups > 1) unsupportedRule(a.op, "vmap", "both group counts above 1");
  const ConvDims& d = c.dims;
  Builder& b = a.b;
  Value* lhs = a.x[0];
  Value* rhs = a.x[1];
  int64_t featureGroups = c.featureGroups, batchGroups = c.batchGroups;
  int64_t out, outGroups = 1;  // where the result's batch is, and its groups around it
  if (a.batched[0] && a.batched[1]) {
    // Slice k's kernel makes output features k·O..(k+1)·O from its own lhs only: the
    // slices become groups, of the batch when the lhs batch is grouped already (a
    // kernel's gradient), else of the features (the existing feature groups nest inside).
    rhs = foldBatch(b, rhs, d.kernelOutputFeature, 1);
    if (batchGroups > 1) {
      lhs = foldBatch(b, lhs, d.inputBatch, 1);
      batchGroups *= a.size;
    } else {
      lhs = foldBatch(b, lhs, d.inputFeature, 1);
      featureGroups *= a.size;
    }
    out = d.outputFeature;
  } else if (a.batched[0]) {
    // More examples of one batch; batch groups split the batch, so it goes inside them.
    lhs = foldBatch(b, lhs, d.inputBatch, batchGroups);
    out = d.outputBatch;
  } else {
    // More kernels: more output features, inside the groups that split them.
    outGroups = std::max(featureGroups, batchGroups);
    rhs = foldBatch(b, rhs, d.kernelOutputFeature, outGroups);
    out = d.outputFeature;
  }
  NamedAttrList attrs = a.op.attrs();
  setAttr(attrs, "feature_group_count", Attribute::integer(featureGroups));
  setAttr(attrs, "batch_group_count", Attribute::integer(batchGroups));
  // The result's shape is inferred; its element type is a parameter.
  const Type& result = a.op.result(0)->type();
  Type given = Type::tensor(result.dtype(), Shape(static_cast<size_t>(result.rank()), 1));
  Value* y = rebuilt(b, a.op, {lhs, rhs}, attrs, {given})[0];
  return {unfoldBatch(b, y, out, outGroups, a.size)};
}

}  // namespace

void addConvolutionRules(OpTable<OpRules>& t) {
  t[O::Convolution] = {&convolutionJvp, &convolutionTranspose, nullptr, &convolutionBatch};
}

}  // namespace kiln::transforms
