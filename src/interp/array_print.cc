// NumPy-style array formatting.
#include "interp/array_print.h"

#include <algorithm>
#include <cstdio>

#include <cmath>

namespace kiln::interp {
namespace {

std::string element(const Literal& lit, int64_t i) {
  DType t = lit.dtype();
  char buf[64];
  switch (kindOf(t)) {
    case DTypeKind::Bool: return lit.boolAt(i) ? "True" : "False";
    case DTypeKind::Signed: return std::to_string(lit.intAt(i));
    case DTypeKind::Unsigned: return std::to_string(lit.uintAt(i));
    case DTypeKind::Float: {
      double v = lit.floatAt(i);
      if (std::isnan(v)) return "nan";
      if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
      std::snprintf(buf, sizeof buf, "%.6g", v);
      std::string s = buf;
      if (s.find_first_of(".en") == std::string::npos) s += ".";
      return s;
    }
    case DTypeKind::Complex: {
      auto c = lit.complexAt(i);
      std::snprintf(buf, sizeof buf, "%.6g%+.6gj", c.real(), c.imag());
      return buf;
    }
  }
  return "?";
}

struct Formatter {
  const Literal& lit;
  bool summarize;
  int64_t edge;
  size_t width = 0;
  std::vector<int64_t> strides;

  // Which indices of a dimension of size n are shown (-1 marks the "..." gap).
  std::vector<int64_t> shown(int64_t n) const {
    std::vector<int64_t> idx;
    if (!summarize || n <= 2 * edge) {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < edge; ++i) idx.push_back(i);
      idx.push_back(-1);
      for (int64_t i = n - edge; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }

  void measure(size_t dim, int64_t base) {
    for (int64_t i : shown(lit.shape()[dim])) {
      if (i < 0) continue;
      int64_t at = base + i * strides[dim];
      if (dim + 1 == lit.shape().size()) width = std::max(width, element(lit, at).size());
      else measure(dim + 1, at);
    }
  }

  void print(std::string& out, size_t dim, int64_t base, size_t indent) const {
    const Shape& shape = lit.shape();
    out += "[";
    bool first = true;
    for (int64_t i : shown(shape[dim])) {
      if (!first) {
        out += dim + 1 == shape.size() ? " " : std::string(shape.size() - dim - 1, '\n') + std::string(indent + 1, ' ');
      }
      first = false;
      if (i < 0) {
        out += "...";
        continue;
      }
      int64_t at = base + i * strides[dim];
      if (dim + 1 == shape.size()) {
        std::string e = element(lit, at);
        out += std::string(width - e.size(), ' ') + e;
      } else {
        print(out, dim + 1, at, indent + 1);
      }
    }
    out += "]";
  }
};

}  // namespace

std::string formatArray(const Literal& value, int64_t threshold, int64_t edgeItems) {
  if (value.type().rank() == 0) return element(value, 0);
  Formatter f{value, value.numElements() > threshold, edgeItems, 0, {}};
  f.strides.assign(value.shape().size(), 1);
  for (size_t i = value.shape().size(); i-- > 1;) f.strides[i - 1] = f.strides[i] * value.shape()[i];
  if (value.numElements() == 0) return "[]";
  f.measure(0, 0);
  std::string out;
  f.print(out, 0, 0, 0);
  return out;
}

}  // namespace kiln::interp
