// Arrays made from nothing: zeros, ones, full, arange, linspace, eye. Their values are
// computed on the host and become arrays through constantArray (dispatch.h).
#include "frontend/broadcasting.h"
#include "frontend/dispatch.h"
#include "kiln/numpy.h"

namespace kiln {

using namespace detail;

namespace {

void checkShape(const std::vector<int64_t>& shape, const char* op) {
  for (int64_t d : shape)
    if (d < 0) throw Error(ErrorKind::Shape, std::string(op) + ": negative dimension " + std::to_string(d));
}

Literal filled(DType dtype, const std::vector<int64_t>& shape, double value) {
  Literal one(Type::scalar(dtype));
  if (isFloat(dtype)) one.setFloat(0, value);
  else if (kiln::isComplex(dtype)) one.setComplex(0, {value, 0});
  else one.setInt(0, static_cast<int64_t>(value));
  return Literal::splat(Type::tensor(dtype, shape), one.storage());
}

void setNumber(Literal& l, int64_t i, double value) {
  if (isFloat(l.dtype())) l.setFloat(i, value);
  else if (kiln::isComplex(l.dtype())) l.setComplex(i, {value, 0});
  else l.setInt(i, static_cast<int64_t>(value));
}

}  // namespace

Array zeros(const std::vector<int64_t>& shape, Dtype dtype, Site site) {
  return translated([&] {
    checkShape(shape, "zeros");
    return constantArray(filled(toDType(dtype), shape, 0), site);
  });
}

Array ones(const std::vector<int64_t>& shape, Dtype dtype, Site site) {
  return translated([&] {
    checkShape(shape, "ones");
    return constantArray(filled(toDType(dtype), shape, 1), site);
  });
}

Array full(const std::vector<int64_t>& shape, const Array& value, std::optional<Dtype> dtype, Site site) {
  return translated([&] {
    checkShape(shape, "full");
    ArrayImpl& v = implOf(value);
    DType t = dtype ? toDType(*dtype) : v.type.dtype();
    if (v.host && v.type.rank() == 0) {
      Literal one = *implOf(withDtype(value, t)).host;
      if (one.dtype() != t) throw Error(ErrorKind::Type, "full: cannot fill " + std::string(name(t)) + " with " + value.type_string());
      return constantArray(Literal::splat(Type::tensor(t, shape), one.storage()), site);
    }
    return broadcast_to(astype(value, fromDType(t), site), shape, site);
  });
}

Array zeros_like(const Array& a, Site site) { return zeros(a.shape(), a.dtype(), site); }
Array ones_like(const Array& a, Site site) { return ones(a.shape(), a.dtype(), site); }

Array arange(int64_t stop, Dtype dtype, Site site) { return arange(0, static_cast<double>(stop), 1, dtype, site); }

Array arange(double start, double stop, double step, Dtype dtype, Site site) {
  return translated([&] {
    if (step == 0) throw Error(ErrorKind::Usage, "arange: step 0");
    double span = (stop - start) / step;
    int64_t n = span > 0 ? static_cast<int64_t>(std::ceil(span)) : 0;
    Literal l(Type::tensor(toDType(dtype), {n}));
    for (int64_t i = 0; i < n; ++i) setNumber(l, i, start + static_cast<double>(i) * step);
    return constantArray(std::move(l), site);
  });
}

Array linspace(double start, double stop, int64_t num, Dtype dtype, Site site) {
  return translated([&] {
    if (num < 0) throw Error(ErrorKind::Usage, "linspace: negative num " + std::to_string(num));
    Literal l(Type::tensor(toDType(dtype), {num}));
    double step = num > 1 ? (stop - start) / static_cast<double>(num - 1) : 0;
    for (int64_t i = 0; i < num; ++i) setNumber(l, i, i == num - 1 && num > 1 ? stop : start + static_cast<double>(i) * step);
    return constantArray(std::move(l), site);
  });
}

Array eye(int64_t n, Dtype dtype, Site site) {
  return translated([&] {
    checkShape({n}, "eye");
    Literal l(Type::tensor(toDType(dtype), {n, n}));  // zeros
    for (int64_t i = 0; i < n; ++i) setNumber(l, i * n + i, 1);
    return constantArray(std::move(l), site);
  });
}

}  // namespace kiln
