// Ops that move elements without computing: reshape, transpose, broadcast, concatenate,
// slicing, take (a gather), pad, one_hot.
#include <algorithm>
#include <numeric>

#include "frontend/broadcasting.h"
#include "frontend/dispatch.h"
#include "frontend/promotion.h"
#include "ir/ops/stablehlo.h"
#include "kiln/numpy.h"

namespace kiln {

using namespace detail;

namespace {

Array reshapeTo(const Array& a, const Shape& shape, const Site& site) {
  if (implOf(a).type.shape() == shape) return a;
  return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) { return std::vector<Value*>{b.reshape(v[0], shape)}; },
               implOf(a).weak);
}

// The common dtype of several arrays (JAX's promotion, pairwise).
DType commonDtype(const std::vector<Array>& arrays) {
  Operand p{implOf(arrays.at(0)).type.dtype(), implOf(arrays[0]).weak};
  for (size_t i = 1; i < arrays.size(); ++i) p = promote(p, {implOf(arrays[i]).type.dtype(), implOf(arrays[i]).weak});
  return p.dtype;
}

}  // namespace

Array reshape(const Array& a, std::vector<int64_t> shape, Site site) {
  return translated([&] {
    int64_t total = implOf(a).type.numElements(), known = 1;
    int unknown = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1) {
        if (unknown >= 0) throw Error(ErrorKind::Shape, "reshape: more than one -1 in the new shape");
        unknown = static_cast<int>(i);
      } else {
        known *= shape[i];
      }
    }
    if (unknown >= 0 && known > 0 && total % known == 0) shape[static_cast<size_t>(unknown)] = total / known;
    if (numElements(shape) != total || (unknown >= 0 && shape[static_cast<size_t>(unknown)] < 0))
      throw Error(ErrorKind::Shape, "reshape: cannot reshape " + a.type_string() + " (" + std::to_string(total) +
                                        " elements) to that shape");
    return reshapeTo(a, shape, site);
  });
}

Array transpose(const Array& a, std::vector<int64_t> axes, Site site) {
  return translated([&] {
    int64_t rank = a.ndim();
    if (axes.empty())
      for (int64_t i = rank - 1; i >= 0; --i) axes.push_back(i);
    for (int64_t& d : axes) d = normalizedAxis(d, rank, "transpose");
    return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) { return std::vector<Value*>{b.transpose(v[0], axes)}; },
                 implOf(a).weak);
  });
}

Array broadcast_to(const Array& a, const std::vector<int64_t>& shape, Site site) {
  return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) {
    broadcastShapes(v[0]->type().shape(), shape, "broadcast_to");
    return std::vector<Value*>{broadcastValue(b, v[0], shape)};
  }, implOf(a).weak);
}

Array expand_dims(const Array& a, int64_t axis, Site site) {
  return translated([&] {
    Shape shape = implOf(a).type.shape();
    int64_t d = normalizedAxis(axis, static_cast<int64_t>(shape.size()) + 1, "expand_dims");
    shape.insert(shape.begin() + d, 1);
    return reshapeTo(a, shape, site);
  });
}

Array squeeze(const Array& a, std::vector<int64_t> axes, Site site) {
  return translated([&] {
    const Shape& from = implOf(a).type.shape();
    int64_t rank = static_cast<int64_t>(from.size());
    if (axes.empty())
      for (int64_t i = 0; i < rank; ++i)
        if (from[static_cast<size_t>(i)] == 1) axes.push_back(i);
    for (int64_t& d : axes) {
      d = normalizedAxis(d, rank, "squeeze");
      if (from[static_cast<size_t>(d)] != 1)
        throw Error(ErrorKind::Shape, "squeeze: axis " + std::to_string(d) + " of " + a.type_string() + " is not 1");
    }
    Shape shape;
    for (int64_t i = 0; i < rank; ++i)
      if (std::find(axes.begin(), axes.end(), i) == axes.end()) shape.push_back(from[static_cast<size_t>(i)]);
    return reshapeTo(a, shape, site);
  });
}

Array concatenate(const std::vector<Array>& arrays, int64_t axis, Site site) {
  return translated([&] {
    if (arrays.empty()) throw Error(ErrorKind::Usage, "concatenate: no arrays");
    DType t = commonDtype(arrays);
    int64_t d = normalizedAxis(axis, arrays[0].ndim(), "concatenate");
    std::vector<Array> typed;
    for (const Array& x : arrays) typed.push_back(withDtype(x, t));
    return emit1(typed, site, [&](Builder& b, const std::vector<Value*>& v) {
      std::vector<Value*> converted;
      for (Value* x : v) converted.push_back(convertValue(b, x, t));
      return std::vector<Value*>{b.concatenate(converted, d)};
    });
  });
}

Array stack(const std::vector<Array>& arrays, int64_t axis, Site site) {
  return translated([&] {
    if (arrays.empty()) throw Error(ErrorKind::Usage, "stack: no arrays");
    int64_t d = normalizedAxis(axis, arrays[0].ndim() + 1, "stack");
    std::vector<Array> expanded;
    for (const Array& x : arrays) expanded.push_back(expand_dims(x, d, site));
    return concatenate(expanded, d, site);
  });
}

Array slice(const Array& a, const std::vector<int64_t>& start, const std::vector<int64_t>& stop,
            std::vector<int64_t> step, Site site) {
  return translated([&] {
    const Shape& shape = implOf(a).type.shape();
    size_t rank = shape.size();
    if (start.size() > rank || stop.size() != start.size() || step.size() > start.size())
      throw Error(ErrorKind::Shape, "slice: " + std::to_string(start.size()) + " starts and " +
                                        std::to_string(stop.size()) + " stops for " + a.type_string());
    Dims lo(rank, 0), hi(shape.begin(), shape.end()), strides(rank, 1);
    for (size_t i = 0; i < start.size(); ++i) {
      int64_t n = shape[i], s = i < step.size() ? step[i] : 1;
      if (s <= 0) throw Error(ErrorKind::Unsupported, "unsupported: slice steps below 1 (reverse the array first)");
      auto clampIndex = [n](int64_t x) { return std::clamp(x < 0 ? x + n : x, int64_t{0}, n); };
      lo[i] = clampIndex(start[i]);
      hi[i] = std::max(lo[i], clampIndex(stop[i]));
      strides[i] = s;
    }
    return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{b.slice(v[0], lo, hi, strides)};
    }, implOf(a).weak);
  });
}

Array take(const Array& a, const Array& indices, int64_t axis, Site site) {
  return translated([&] {
    const Type& t = implOf(a).type;
    int64_t d = normalizedAxis(axis, t.rank(), "take");
    if (!isInteger(implOf(indices).type.dtype()))
      throw Error(ErrorKind::Type, "take: indices of " + indices.type_string() + "; take needs integers");
    return emit1({a, indices}, site, [&](Builder& b, const std::vector<Value*>& v) {
      Value* idx = v[1];
      int64_t k = idx->type().rank();
      // Negative indices count from the end, as in NumPy.
      Value* n = b.splat(idx->type(), static_cast<double>(t.dim(d)));
      Value* negative = b.compare(idx, b.splat(idx->type(), 0), ComparisonDirection::LT);
      idx = b.select(negative, b.binary(ops::Add, idx, n), idx);
      idx = b.reshape(idx, [&] { Shape s = idx->type().shape(); s.push_back(1); return s; }());
      GatherDims dims;
      for (int64_t i = 0; i < t.rank(); ++i)
        if (i != d) dims.offsetDims.push_back(i < d ? i : i - 1 + k);
      dims.collapsedSliceDims = {d};
      dims.startIndexMap = {d};
      dims.indexVectorDim = k;
      Dims sizes(t.shape().begin(), t.shape().end());
      sizes[static_cast<size_t>(d)] = 1;
      return std::vector<Value*>{b.gather(v[0], idx, dims, sizes)};
    });
  });
}

Array pad(const Array& a, const std::vector<std::pair<int64_t, int64_t>>& widths, const Array& value, Site site) {
  return translated([&] {
    const Type& t = implOf(a).type;
    if (static_cast<int64_t>(widths.size()) != t.rank())
      throw Error(ErrorKind::Shape, "pad: " + std::to_string(widths.size()) + " widths for " + a.type_string());
    Dims lo, hi, interior(static_cast<size_t>(t.rank()), 0);
    for (const auto& [l, h] : widths) {
      lo.push_back(l);
      hi.push_back(h);
    }
    Array fill = withDtype(value, t.dtype());
    return emit1({a, fill}, site, [&](Builder& b, const std::vector<Value*>& v) {
      Value* f = b.reshape(convertValue(b, v[1], t.dtype()), {});
      return std::vector<Value*>{b.pad(v[0], f, lo, hi, interior)};
    });
  });
}

Array one_hot(const Array& labels, int64_t classes, Dtype dtype, Site site) {
  return translated([&] {
    DType out = toDType(dtype);
    return emit1({labels}, site, [&](Builder& b, const std::vector<Value*>& v) {
      Shape shape = v[0]->type().shape();
      shape.push_back(classes);
      DType lt = v[0]->type().dtype();
      Value* iota = b.iota(Type::tensor(lt, shape), static_cast<int64_t>(shape.size()) - 1);
      Dims dims(shape.size() - 1);
      std::iota(dims.begin(), dims.end(), 0);
      Value* wide = b.broadcastInDim(v[0], shape, dims);
      Value* hit = b.compare(wide, iota, ComparisonDirection::EQ);
      return std::vector<Value*>{b.convert(hit, out)};
    });
  });
}

namespace detail {
Array basisLast(const Array& a, const std::vector<int64_t>& in) {
  std::vector<int64_t> perm;
  for (int64_t i = 1; i < a.ndim(); ++i) perm.push_back(i);
  perm.push_back(0);
  std::vector<int64_t> shape(a.shape().begin() + 1, a.shape().end());
  shape.insert(shape.end(), in.begin(), in.end());
  return reshape(transpose(a, perm), shape);
}
}  // namespace detail

}  // namespace kiln
