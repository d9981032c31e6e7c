// Elementwise ops: promotion to a common dtype, NumPy broadcasting, then one StableHLO
// op (or a few).
#include "frontend/broadcasting.h"
#include "frontend/dispatch.h"
#include "frontend/promotion.h"
#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"
#include "kiln/numpy.h"

namespace kiln {

using namespace detail;

namespace {

Operand operandOf(const Array& a) { return {implOf(a).type.dtype(), implOf(a).weak}; }

// Ops whose integer operands become floats first (NumPy's true division, exp, ...):
// float32, or float64 for 64-bit integers.
DType floatFor(DType t) {
  if (isFloat(t) || kiln::isComplex(t)) return t;
  return bitWidth(t) >= 64 ? DType::F64 : DType::F32;
}

enum class Domain { Any, Floating };

Array binary(OpCode code, const Array& x, const Array& y, const Site& site, Domain domain = Domain::Any) {
  return translated([&] {
    Operand p = promote(operandOf(x), operandOf(y));
    DType t = domain == Domain::Floating ? floatFor(p.dtype) : p.dtype;
    Array xs = withDtype(x, t), ys = withDtype(y, t);
    return emit1({xs, ys}, site, [&](Builder& b, const std::vector<Value*>& v) {
      Shape shape = broadcastShapes(v[0]->type().shape(), v[1]->type().shape(), std::string(opInfo(code).name));
      Value* l = broadcastValue(b, convertValue(b, v[0], t), shape);
      Value* r = broadcastValue(b, convertValue(b, v[1], t), shape);
      return std::vector<Value*>{b.binary(code, l, r)};
    }, p.weak, "binary " + std::to_string(static_cast<int>(code)) + (domain == Domain::Floating ? "f" : ""));
  });
}

Array comparison(ComparisonDirection dir, const Array& x, const Array& y, const Site& site) {
  return translated([&] {
    DType t = promote(operandOf(x), operandOf(y)).dtype;
    Array xs = withDtype(x, t), ys = withDtype(y, t);
    return emit1({xs, ys}, site, [&](Builder& b, const std::vector<Value*>& v) {
      Shape shape = broadcastShapes(v[0]->type().shape(), v[1]->type().shape(), "compare");
      Value* l = broadcastValue(b, convertValue(b, v[0], t), shape);
      Value* r = broadcastValue(b, convertValue(b, v[1], t), shape);
      return std::vector<Value*>{b.compare(l, r, dir)};
    }, false, "compare " + std::to_string(static_cast<int>(dir)));
  });
}

Array unary(OpCode code, const Array& x, const Site& site, Domain domain = Domain::Any) {
  return translated([&] {
    DType from = implOf(x).type.dtype();
    DType t = domain == Domain::Floating ? floatFor(from) : from;
    return emit1({x}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{b.unary(code, convertValue(b, v[0], t))};
    }, implOf(x).weak, "unary " + std::to_string(static_cast<int>(code)) + (domain == Domain::Floating ? "f" : ""));
  });
}

Value* toBool(Builder& b, Value* v) {
  if (v->type().dtype() == DType::I1) return v;
  return b.compare(v, b.splat(v->type(), 0), ComparisonDirection::NE);
}

}  // namespace

Array add(const Array& a, const Array& b, Site site) { return binary(ops::Add, a, b, site); }
Array subtract(const Array& a, const Array& b, Site site) { return binary(ops::Subtract, a, b, site); }
Array multiply(const Array& a, const Array& b, Site site) { return binary(ops::Multiply, a, b, site); }
Array divide(const Array& a, const Array& b, Site site) { return binary(ops::Divide, a, b, site, Domain::Floating); }
Array power(const Array& a, const Array& b, Site site) { return binary(ops::Power, a, b, site); }
Array maximum(const Array& a, const Array& b, Site site) { return binary(ops::Maximum, a, b, site); }
Array minimum(const Array& a, const Array& b, Site site) { return binary(ops::Minimum, a, b, site); }

Array equal(const Array& a, const Array& b, Site site) { return comparison(ComparisonDirection::EQ, a, b, site); }
Array not_equal(const Array& a, const Array& b, Site site) { return comparison(ComparisonDirection::NE, a, b, site); }
Array less(const Array& a, const Array& b, Site site) { return comparison(ComparisonDirection::LT, a, b, site); }
Array less_equal(const Array& a, const Array& b, Site site) { return comparison(ComparisonDirection::LE, a, b, site); }
Array greater(const Array& a, const Array& b, Site site) { return comparison(ComparisonDirection::GT, a, b, site); }
Array greater_equal(const Array& a, const Array& b, Site site) { return comparison(ComparisonDirection::GE, a, b, site); }

namespace {
// and / or of the operands as bools (nonzero is true), broadcast.
Array logical(OpCode code, const Array& a, const Array& b, const Site& site, const char* op) {
  return emit1({a, b}, site, [&](Builder& bld, const std::vector<Value*>& v) {
    Shape shape = broadcastShapes(v[0]->type().shape(), v[1]->type().shape(), op);
    return std::vector<Value*>{bld.binary(code, broadcastValue(bld, toBool(bld, v[0]), shape),
                                          broadcastValue(bld, toBool(bld, v[1]), shape))};
  });
}
}  // namespace

Array logical_and(const Array& a, const Array& b, Site site) { return logical(ops::And, a, b, site, "logical_and"); }
Array logical_or(const Array& a, const Array& b, Site site) { return logical(ops::Or, a, b, site, "logical_or"); }
Array logical_not(const Array& a, Site site) {
  return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) {
    return std::vector<Value*>{b.unary(ops::Not, toBool(b, v[0]))};
  });
}

Array negative(const Array& a, Site site) { return unary(ops::Negate, a, site); }
Array abs(const Array& a, Site site) { return unary(ops::Abs, a, site); }
Array sign(const Array& a, Site site) { return unary(ops::Sign, a, site); }
Array square(const Array& a, Site site) { return multiply(a, a, site); }
Array sqrt(const Array& a, Site site) { return unary(ops::Sqrt, a, site, Domain::Floating); }
Array rsqrt(const Array& a, Site site) { return unary(ops::Rsqrt, a, site, Domain::Floating); }
Array exp(const Array& a, Site site) { return unary(ops::Exponential, a, site, Domain::Floating); }
Array expm1(const Array& a, Site site) { return unary(ops::ExponentialMinusOne, a, site, Domain::Floating); }
Array log(const Array& a, Site site) { return unary(ops::Log, a, site, Domain::Floating); }
Array log1p(const Array& a, Site site) { return unary(ops::LogPlusOne, a, site, Domain::Floating); }
Array sin(const Array& a, Site site) { return unary(ops::Sine, a, site, Domain::Floating); }
Array cos(const Array& a, Site site) { return unary(ops::Cosine, a, site, Domain::Floating); }
Array tanh(const Array& a, Site site) { return unary(ops::Tanh, a, site, Domain::Floating); }

namespace {
// floor, ceil and round leave integers as they are.
Array rounding(OpCode code, const Array& a, const Site& site) {
  if (!isFloat(implOf(a).type.dtype())) return a;
  return unary(code, a, site);
}
}  // namespace
Array floor(const Array& a, Site site) { return rounding(ops::Floor, a, site); }
Array ceil(const Array& a, Site site) { return rounding(ops::Ceil, a, site); }
Array round(const Array& a, Site site) { return rounding(ops::RoundNearestEven, a, site); }

Array where(const Array& cond, const Array& a, const Array& b, Site site) {
  return translated([&] {
    Operand p = promote(operandOf(a), operandOf(b));
    Array as = withDtype(a, p.dtype), bs = withDtype(b, p.dtype);
    return emit1({cond, as, bs}, site, [&](Builder& bld, const std::vector<Value*>& v) {
      Shape shape = broadcastShapes(v[0]->type().shape(), v[1]->type().shape(), "where");
      shape = broadcastShapes(shape, v[2]->type().shape(), "where");
      Value* c = broadcastValue(bld, toBool(bld, v[0]), shape);
      Value* x = broadcastValue(bld, convertValue(bld, v[1], p.dtype), shape);
      Value* y = broadcastValue(bld, convertValue(bld, v[2], p.dtype), shape);
      return std::vector<Value*>{bld.select(c, x, y)};
    }, p.weak);
  });
}

Array clip(const Array& a, const Array& lo, const Array& hi, Site site) {
  return minimum(maximum(a, lo, site), hi, site);
}

Array astype(const Array& a, Dtype dtype, Site site) {
  return translated([&] {
    DType t = toDType(dtype);
    if (implOf(a).type.dtype() == t && !implOf(a).weak) return a;
    return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{convertValue(b, v[0], t)};
    });
  });
}

Array stop_gradient(const Array& a, Site site) {
  static const OpCode stop = *lookupOp("kiln.stop_gradient");
  return emit1({a}, site, [&](Builder& b, const std::vector<Value*>& v) {
    return std::vector<Value*>{b.create1(stop, {v[0]})};
  }, implOf(a).weak);
}

Array operator+(const Array& a, const Array& b) { return add(a, b, Site()); }
Array operator-(const Array& a, const Array& b) { return subtract(a, b, Site()); }
Array operator*(const Array& a, const Array& b) { return multiply(a, b, Site()); }
Array operator/(const Array& a, const Array& b) { return divide(a, b, Site()); }
Array operator-(const Array& a) { return negative(a, Site()); }
Array operator==(const Array& a, const Array& b) { return equal(a, b, Site()); }
Array operator!=(const Array& a, const Array& b) { return not_equal(a, b, Site()); }
Array operator<(const Array& a, const Array& b) { return less(a, b, Site()); }
Array operator<=(const Array& a, const Array& b) { return less_equal(a, b, Site()); }
Array operator>(const Array& a, const Array& b) { return greater(a, b, Site()); }
Array operator>=(const Array& a, const Array& b) { return greater_equal(a, b, Site()); }
Array operator&&(const Array& a, const Array& b) { return logical_and(a, b, Site()); }
Array operator||(const Array& a, const Array& b) { return logical_or(a, b, Site()); }
Array operator!(const Array& a) { return logical_not(a, Site()); }

}  // namespace kiln
