#include "frontend/broadcasting.h"

namespace kiln::detail {

namespace {
std::string shapeText(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}
}  // namespace

int64_t normalizedAxis(int64_t axis, int64_t rank, const std::string& op) {
  int64_t d = axis < 0 ? axis + rank : axis;
  if (d < 0 || d >= rank)
    throw Error(ErrorKind::Shape, op + ": axis " + std::to_string(axis) + " of an array with " + std::to_string(rank) + " axes");
  return d;
}

Shape broadcastShapes(const Shape& a, const Shape& b, const std::string& op) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error(ErrorKind::Shape, op + ": shapes " + shapeText(a) + " and " + shapeText(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Value* broadcastValue(Builder& b, Value* v, const Shape& shape) {
  const Shape& from = v->type().shape();
  if (from == shape) return v;
  if (from.size() > shape.size())
    throw Error(ErrorKind::Shape, "cannot broadcast " + shapeText(from) + " to " + shapeText(shape));
  Dims dims;
  for (size_t i = 0; i < from.size(); ++i) {
    size_t target = shape.size() - from.size() + i;
    if (from[i] != 1 && from[i] != shape[target])
      throw Error(ErrorKind::Shape, "cannot broadcast " + shapeText(from) + " to " + shapeText(shape));
    dims.push_back(static_cast<int64_t>(target));
  }
  return b.broadcastInDim(v, shape, dims);
}

Value* convertValue(Builder& b, Value* v, DType dtype) {
  if (v->type().dtype() == dtype) return v;
  return b.convert(v, dtype);
}

Array withDtype(const Array& a, DType dtype) {
  ArrayImpl& impl = implOf(a);
  if (!impl.weak || !impl.host || impl.type.dtype() == dtype) return a;
  Literal l(Type::scalar(dtype));
  if (kiln::isComplex(impl.type.dtype())) {
    if (!kiln::isComplex(dtype)) return a;  // the op converts (and says what it thinks of it)
    l.setComplex(0, impl.host->complexAt(0));
  } else if (isFloat(dtype)) {
    l.setFloat(0, impl.exact);
  } else if (kiln::isComplex(dtype)) {
    l.setComplex(0, {impl.exact, 0});
  } else {
    l.setInt(0, static_cast<int64_t>(impl.exact));
  }
  return makeHostScalar(std::move(l), true);
}

}  // namespace kiln::detail
