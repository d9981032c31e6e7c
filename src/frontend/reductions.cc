// Reductions over axes (sum, mean, max, ..., argmax), with NumPy's keepdims and JAX's
// accumulation dtypes (small integers and bools sum as int32 / uint32).
#include <algorithm>
#include <limits>

#include "frontend/broadcasting.h"
#include "frontend/dispatch.h"
#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"
#include "kiln/numpy.h"

namespace kiln {

using namespace detail;

namespace {

// The folded axes, in range, sorted and without repeats.
Dims axesOf(const Axes& axes, int64_t rank, const char* op) {
  Dims dims;
  if (axes.all) {
    for (int64_t i = 0; i < rank; ++i) dims.push_back(i);
    return dims;
  }
  for (int64_t a : axes.list) dims.push_back(normalizedAxis(a, rank, op));
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end())
    throw Error(ErrorKind::Shape, std::string(op) + ": an axis is named twice");
  return dims;
}

// The shape after folding `dims`, keeping them as size 1 when keepdims.
Shape reducedShape(const Shape& shape, const Dims& dims, bool keepdims) {
  Shape out;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) {
    bool folded = std::find(dims.begin(), dims.end(), i) != dims.end();
    if (!folded) out.push_back(shape[static_cast<size_t>(i)]);
    else if (keepdims) out.push_back(1);
  }
  return out;
}

// Sums accumulate small integers and bools as JAX does.
DType sumDtype(DType t) {
  if (t == DType::I1) return DType::I32;
  if (isSignedInt(t) && bitWidth(t) < 32) return DType::I32;
  if (isUnsignedInt(t) && bitWidth(t) < 32) return DType::U32;
  return t;
}

Array reduction(OpCode code, const Array& a, const Axes& axes, bool keepdims, const Site& site, const char* op,
                DType (*accumulate)(DType) = nullptr) {
  return translated([&] {
    const Type& t = implOf(a).type;
    Dims dims = axesOf(axes, t.rank(), op);
    DType dtype = accumulate ? accumulate(t.dtype()) : t.dtype();
    return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) {
      std::optional<Literal> identity = reducerIdentity(code, dtype);
      Value* x = dtype == t.dtype() ? v[0] : b.convert(v[0], dtype);
      Value* init = b.constant(*identity);
      Value* r = b.reduce({x}, {init}, dims, [&](Builder& rb, const std::vector<Value*>& args) {
        return std::vector<Value*>{rb.binary(code, args[0], args[1])};
      })[0];
      if (keepdims) r = b.reshape(r, reducedShape(t.shape(), dims, true));
      return std::vector<Value*>{r};
    });
  });
}

int64_t countOf(const Array& a, const Axes& axes, const char* op) {
  int64_t n = 1;
  for (int64_t d : axesOf(axes, a.ndim(), op)) n *= a.shape()[static_cast<size_t>(d)];
  return n;
}

Array floatOf(const Array& a, const Site& site) {
  DType t = implOf(a).type.dtype();
  if (isFloat(t) || kiln::isComplex(t)) return a;
  return astype(a, bitWidth(t) >= 64 ? float64 : float32, site);
}

Array argReduction(bool max, const Array& a, std::optional<int64_t> axis, bool keepdims, const Site& site) {
  const char* op = max ? "argmax" : "argmin";
  return translated([&] {
    return composite1({a}, op, [&](const std::vector<Array>& in) {
      Array x = in[0];
      int64_t d = 0;
      if (!axis) {
        x = reshape(x, {-1}, site);
      } else {
        d = axesOf(Axes(*axis), x.ndim(), op)[0];
      }
      Shape shape = implOf(x).type.shape();
      return emit1({x}, site, [&](Builder& b, const std::vector<Value*>& v) {
        Type indexType = Type::tensor(DType::I32, shape);
        Value* index = b.iota(indexType, d);
        DType vt = v[0]->type().dtype();
        Literal worst(Type::scalar(vt));
        if (isFloat(vt)) worst.setFloat(0, max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
        else worst = *reducerIdentity(max ? ops::Maximum : ops::Minimum, vt);
        Literal zero(Type::scalar(DType::I32));
        std::vector<Value*> r = b.reduce({v[0], index}, {b.constant(worst), b.constant(zero)}, {d},
                                         [&](Builder& rb, const std::vector<Value*>& args) {
          // args: (value, index) of the accumulator, then of the element. The first of
          // equal values wins, as in NumPy.
          Value* better = rb.compare(args[0], args[2], max ? ComparisonDirection::GT : ComparisonDirection::LT);
          Value* same = rb.compare(args[0], args[2], ComparisonDirection::EQ);
          Value* earlier = rb.compare(args[1], args[3], ComparisonDirection::LT);
          Value* keep = rb.binary(ops::Or, better, rb.binary(ops::And, same, earlier));
          return std::vector<Value*>{rb.select(keep, args[0], args[2]), rb.select(keep, args[1], args[3])};
        });
        Value* out = r[1];
        if (keepdims) {
          Shape kept = axis ? reducedShape(implOf(in[0]).type.shape(), {d}, true) : Shape(static_cast<size_t>(in[0].ndim()), 1);
          out = b.reshape(out, kept);
        }
        return std::vector<Value*>{out};
      });
    });
  });
}

}  // namespace

Array sum(const Array& a, Axes axes, bool keepdims, Site site) {
  return reduction(ops::Add, a, axes, keepdims, site, "sum", &sumDtype);
}
Array prod(const Array& a, Axes axes, bool keepdims, Site site) {
  return reduction(ops::Multiply, a, axes, keepdims, site, "prod", &sumDtype);
}
Array max(const Array& a, Axes axes, bool keepdims, Site site) {
  return reduction(ops::Maximum, a, axes, keepdims, site, "max");
}
Array min(const Array& a, Axes axes, bool keepdims, Site site) {
  return reduction(ops::Minimum, a, axes, keepdims, site, "min");
}

Array mean(const Array& a, Axes axes, bool keepdims, Site site) {
  return composite1({a}, "mean", [&](const std::vector<Array>& in) {
    Array x = floatOf(in[0], site);
    return divide(sum(x, axes, keepdims, site), static_cast<double>(countOf(x, axes, "mean")), site);
  });
}

Array var(const Array& a, Axes axes, bool keepdims, Site site) {
  return composite1({a}, "var", [&](const std::vector<Array>& in) {
    Array x = floatOf(in[0], site);
    Array centered = subtract(x, mean(x, axes, true, site), site);
    return mean(multiply(centered, centered, site), axes, keepdims, site);
  });
}

Array std(const Array& a, Axes axes, bool keepdims, Site site) {
  return composite1({a}, "std", [&](const std::vector<Array>& in) { return sqrt(var(in[0], axes, keepdims, site), site); });
}

Array logsumexp(const Array& a, Axes axes, bool keepdims, Site site) {
  return composite1({a}, "logsumexp", [&](const std::vector<Array>& in) {
    Array x = floatOf(in[0], site);
    Array m = max(x, axes, true, site);
    // Shift by the maximum for stability; an infinite maximum (all -inf) shifts by 0.
    double inf = std::numeric_limits<double>::infinity();
    m = stop_gradient(where(logical_and(greater(m, -inf, site), less(m, inf, site), site), m, 0.0, site), site);
    Array s = log(sum(exp(subtract(x, m, site), site), axes, true, site), site);
    Array out = add(s, m, site);
    return keepdims ? out : squeeze(out, axesOf(axes, x.ndim(), "logsumexp"), site);
  });
}

Array argmax(const Array& a, std::optional<int64_t> axis, bool keepdims, Site site) {
  return argReduction(true, a, axis, keepdims, site);
}
Array argmin(const Array& a, std::optional<int64_t> axis, bool keepdims, Site site) {
  return argReduction(false, a, axis, keepdims, site);
}

}  // namespace kiln
