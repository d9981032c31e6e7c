// matmul and dot with NumPy's rules, as one dot_general each (broadcast batch
// dimensions are made explicit first).
#include <numeric>

#include "frontend/broadcasting.h"
#include "frontend/dispatch.h"
#include "frontend/promotion.h"
#include "kiln/numpy.h"

namespace kiln {

using namespace detail;

namespace {

Dims range(int64_t from, int64_t to) {
  Dims d;
  for (int64_t i = from; i < to; ++i) d.push_back(i);
  return d;
}

// Both operands in their promoted dtype.
std::pair<Array, Array> promoted(const Array& a, const Array& b, DType& t) {
  t = promote({implOf(a).type.dtype(), implOf(a).weak}, {implOf(b).type.dtype(), implOf(b).weak}).dtype;
  return {withDtype(a, t), withDtype(b, t)};
}

std::string operandsText(const Array& a, const Array& b) { return a.type_string() + " and " + b.type_string(); }

}  // namespace

Array matmul(const Array& a, const Array& b, Site site) {
  return translated([&] {
    DType t;
    auto [x, y] = promoted(a, b, t);
    int64_t ra = x.ndim(), rb = y.ndim();
    if (ra == 0 || rb == 0) throw Error(ErrorKind::Shape, "matmul: a scalar operand (" + operandsText(a, b) + "); use multiply");
    int64_t ka = x.shape().back(), kb = rb == 1 ? y.shape()[0] : y.shape()[static_cast<size_t>(rb - 2)];
    if (ka != kb)
      throw Error(ErrorKind::Shape, "matmul: contracting dimensions differ (" + std::to_string(ka) + " and " +
                                        std::to_string(kb) + ") for " + operandsText(a, b));
    return emit1({x, y}, site, [&](Builder& bld, const std::vector<Value*>& v) {
      Value* l = convertValue(bld, v[0], t);
      Value* r = convertValue(bld, v[1], t);
      // A batch on one side only: contract directly, the free dimensions in NumPy's
      // order (x[..., m, k] @ w[k, n] is [..., m, n]; v[k] @ y[..., k, n] is [..., n]).
      if (rb <= 2 || ra == 1) {
        DotDims dims;
        dims.lhsContracting = {ra - 1};
        dims.rhsContracting = {rb == 1 ? 0 : rb - 2};
        return std::vector<Value*>{bld.dotGeneral(l, r, dims)};
      }
      // Batched on both sides: broadcast the batch dimensions to one shape.
      Shape batchA(x.shape().begin(), x.shape().end() - 2);
      Shape batchB(y.shape().begin(), y.shape().end() - 2);
      Shape batch = broadcastShapes(batchA, batchB, "matmul");
      auto withBatch = [&](Value* v, const Shape& tail) {
        Shape full = batch;
        full.insert(full.end(), tail.begin(), tail.end());
        return broadcastValue(bld, v, full);
      };
      int64_t nb = static_cast<int64_t>(batch.size());
      l = withBatch(l, Shape(x.shape().end() - 2, x.shape().end()));
      r = withBatch(r, Shape(y.shape().end() - 2, y.shape().end()));
      DotDims dims;
      dims.lhsBatch = dims.rhsBatch = range(0, nb);
      dims.lhsContracting = {nb + 1};
      dims.rhsContracting = {nb};
      return std::vector<Value*>{bld.dotGeneral(l, r, dims)};
    });
  });
}

Array dot(const Array& a, const Array& b, Site site) {
  return translated([&] {
    if (a.ndim() == 0 || b.ndim() == 0) return multiply(a, b, site);
    if (a.ndim() <= 2 && b.ndim() <= 2) return matmul(a, b, site);
    DType t;
    auto [x, y] = promoted(a, b, t);
    int64_t ra = x.ndim(), rb = y.ndim();
    int64_t kb = rb == 1 ? 0 : rb - 2;
    if (x.shape().back() != y.shape()[static_cast<size_t>(kb)])
      throw Error(ErrorKind::Shape, "dot: contracting dimensions differ for " + operandsText(a, b));
    return emit1({x, y}, site, [&](Builder& bld, const std::vector<Value*>& v) {
      DotDims dims;
      dims.lhsContracting = {ra - 1};
      dims.rhsContracting = {kb};
      return std::vector<Value*>{bld.dotGeneral(convertValue(bld, v[0], t), convertValue(bld, v[1], t), dims)};
    });
  });
}

}  // namespace kiln
