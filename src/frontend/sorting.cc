// Sorting, running sums and splitting along an axis.
#include <numeric>

#include "frontend/broadcasting.h"
#include "frontend/dispatch.h"
#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"
#include "kiln/numpy.h"

namespace kiln {

using namespace detail;

namespace {

// (value, index) pairs sorted along `d`, stably, floats in total order.
std::vector<Value*> sortWithIndices(Builder& b, Value* x, int64_t d) {
  Value* index = b.iota(x->type().withDType(DType::I32), d);
  DType t = x->type().dtype();
  return b.sort({x, index}, d, true, [t](Builder& sb, const std::vector<Value*>& a) {
    std::optional<ComparisonType> order;
    if (isFloat(t)) order = ComparisonType::TotalOrder;
    return std::vector<Value*>{sb.compare(a[0], a[1], ComparisonDirection::LT, order)};
  });
}

}  // namespace

Array sort(const Array& a, int64_t axis, Site site) {
  return translated([&] {
    int64_t d = normalizedAxis(axis, a.ndim(), "sort");
    return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{sortWithIndices(b, v[0], d)[0]};
    });
  });
}

Array argsort(const Array& a, int64_t axis, Site site) {
  return translated([&] {
    int64_t d = normalizedAxis(axis, a.ndim(), "argsort");
    return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{sortWithIndices(b, v[0], d)[1]};
    });
  });
}

Array cumsum(const Array& a, int64_t axis, Site site) {
  return translated([&] {
    int64_t d = normalizedAxis(axis, a.ndim(), "cumsum");
    // A window of the whole axis, padded in front: each output sums what precedes it.
    return composite1({a}, "cumsum", [&](const std::vector<Array>& in) {
      Array x = in[0];
      DType t = implOf(x).type.dtype();
      if (t == DType::I1 || (isInteger(t) && bitWidth(t) < 32)) x = astype(x, isUnsignedInt(t) ? uint32 : int32, site);
      int64_t n = x.shape()[static_cast<size_t>(d)];
      return emit1({x}, site, [&](Builder& b, const std::vector<Value*>& v) {
        int64_t rank = v[0]->type().rank();
        Window w;
        w.dimensions = Dims(static_cast<size_t>(rank), 1);
        w.dimensions[static_cast<size_t>(d)] = n;
        w.padding = std::vector<std::pair<int64_t, int64_t>>(static_cast<size_t>(rank), {0, 0});
        w.padding[static_cast<size_t>(d)] = {n - 1, 0};
        Value* zero = b.constant(*reducerIdentity(ops::Add, v[0]->type().dtype()));
        return b.reduceWindow({v[0]}, {zero}, w, [](Builder& rb, const std::vector<Value*>& args) {
          return std::vector<Value*>{rb.binary(ops::Add, args[0], args[1])};
        });
      });
    });
  });
}

std::vector<Array> split(const Array& a, const std::vector<int64_t>& indices, int64_t axis, Site site) {
  return translated([&] {
    int64_t d = normalizedAxis(axis, a.ndim(), "split");
    int64_t n = a.shape()[static_cast<size_t>(d)];
    std::vector<int64_t> bounds{0};
    for (int64_t i : indices) bounds.push_back(std::clamp(i < 0 ? i + n : i, bounds.back(), n));
    bounds.push_back(n);
    std::vector<Array> parts;
    for (size_t k = 0; k + 1 < bounds.size(); ++k) {
      std::vector<int64_t> start(static_cast<size_t>(d + 1), 0), stop;
      for (int64_t i = 0; i <= d; ++i) stop.push_back(a.shape()[static_cast<size_t>(i)]);
      start[static_cast<size_t>(d)] = bounds[k];
      stop[static_cast<size_t>(d)] = bounds[k + 1];
      parts.push_back(slice(a, start, stop, {}, site));
    }
    return parts;
  });
}

std::vector<Array> split(const Array& a, int64_t sections, int64_t axis, Site site) {
  return translated([&] {
    int64_t d = normalizedAxis(axis, a.ndim(), "split");
    int64_t n = a.shape()[static_cast<size_t>(d)];
    if (sections < 1 || n % sections != 0)
      throw Error(ErrorKind::Shape, "split: " + std::to_string(sections) + " equal sections of an axis of " +
                                        std::to_string(n) + " (give split points instead)");
    std::vector<int64_t> indices;
    for (int64_t k = 1; k < sections; ++k) indices.push_back(k * (n / sections));
    return split(a, indices, axis, site);
  });
}

}  // namespace kiln
