// Kernels: the check ops and the check custom_calls of the test suites, with the
// semantics of the StableHLO reference checker (stablehlo/tests/CheckOps.cpp and the
// interpreter's fallback for custom_calls):
//   expect_eq        exact; floats compare with IEEE == (NaN != NaN, -0 == +0)
//   expect_almost_eq |actual - expected| <= tolerance (absolute; default 1e-4, 1e-3 for
//                    the custom_call); both NaN passes; values of different signs fail
//   expect_close     min <= ULP distance <= max (the custom_call: [0, 3])
#include <bit>
#include <cmath>

#include "interp/kernels.h"
#include "interp/ops/custom_calls.h"
#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"
#include "stablehlo/printer.h"

namespace kiln::interp {
namespace {

std::string indexText(int64_t linear, const Shape& shape) {
  std::vector<int64_t> index;
  unravel(linear, shape, index);
  std::string s = "[";
  for (size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
  return s + "]";
}

std::string elementText(const Literal& lit, int64_t i) {
  DType t = lit.dtype();
  switch (kindOf(t)) {
    case DTypeKind::Bool: return lit.boolAt(i) ? "true" : "false";
    case DTypeKind::Signed: return std::to_string(lit.intAt(i));
    case DTypeKind::Unsigned: return std::to_string(lit.uintAt(i));
    case DTypeKind::Float: return stablehlo::printFloat(lit.floatAt(i), t);
    case DTypeKind::Complex: {
      auto c = lit.complexAt(i);
      return "(" + stablehlo::printFloat(c.real(), complexPart(t)) + ", " +
             stablehlo::printFloat(c.imag(), complexPart(t)) + ")";
    }
  }
  return "?";
}

[[noreturn]] void fail(const Op& op, std::string message) {
  std::string name(op.name());
  if (op.is(ops::CustomCall)) name = "@" + op.attr("call_target_name").asString();
  throw CheckFailed(CheckFailure{name, op.pos, std::move(message)});
}

void checkSameShape(const Op& op, const Literal& actual, const Literal& expected) {
  if (actual.type() != expected.type())
    fail(op, "actual " + actual.type().str() + " but expected " + expected.type().str());
}

// ---- exact ----

bool exactlyEqual(const Literal& a, const Literal& b, int64_t i) {
  switch (kindOf(a.dtype())) {
    case DTypeKind::Float: return a.floatAt(i) == b.floatAt(i);
    case DTypeKind::Complex: return a.complexAt(i) == b.complexAt(i);
    default: return a.bitsAt(i) == b.bitsAt(i);
  }
}

void expectEq(const Op& op, const Literal& actual, const Literal& expected) {
  checkSameShape(op, actual, expected);
  for (int64_t i = 0, n = actual.numElements(); i < n; ++i) {
    if (!exactlyEqual(actual, expected, i))
      fail(op, "element " + indexText(i, actual.shape()) + ": got " + elementText(actual, i) +
                   ", expected " + elementText(expected, i));
  }
}

// ---- absolute tolerance ----

bool almostEqual(double f, double g, double tolerance) {
  if (f == g) return true;  // also +0 vs -0 and equal infinities
  if (std::isnan(f) || std::isnan(g)) return std::isnan(f) && std::isnan(g);
  if (std::isinf(f) || std::isinf(g)) return false;
  if (std::signbit(f) != std::signbit(g)) return false;  // the reference checker's rule
  return std::fabs(f - g) <= tolerance;
}

void expectAlmostEq(const Op& op, const Literal& actual, const Literal& expected, double tolerance) {
  checkSameShape(op, actual, expected);
  DType t = actual.dtype();
  if (!isFloat(t) && !isComplex(t)) fail(op, "needs float or complex values, got " + actual.type().str());
  for (int64_t i = 0, n = actual.numElements(); i < n; ++i) {
    bool ok;
    if (isComplex(t)) {
      auto a = actual.complexAt(i), e = expected.complexAt(i);
      ok = almostEqual(a.real(), e.real(), tolerance) && almostEqual(a.imag(), e.imag(), tolerance);
    } else {
      ok = almostEqual(actual.floatAt(i), expected.floatAt(i), tolerance);
    }
    if (!ok)
      fail(op, "element " + indexText(i, actual.shape()) + ": got " + elementText(actual, i) +
                   ", expected " + elementText(expected, i) + " (tolerance " +
                   stablehlo::printFloat(tolerance, DType::F64) + ")");
  }
}

// ---- ULP distance ----

// The distance in units in the last place between two values of a float format, as the
// reference checker counts it: bit patterns with the sign cleared, summed across zero.
uint64_t ulpDistance(uint64_t fBits, uint64_t gBits, DType t) {
  if (fBits == gBits) return 0;
  double f = bitsToFloat(fBits, t), g = bitsToFloat(gBits, t);
  if (std::isnan(f) && std::isnan(g)) return 0;
  if (!std::isfinite(f) || !std::isfinite(g)) return UINT64_MAX;
  int width = bitWidth(t);
  uint64_t sign = uint64_t{1} << (width - 1);
  uint64_t a = fBits & (sign - 1), b = gBits & (sign - 1);
  if ((fBits & sign) != (gBits & sign)) return a + b;
  return a > b ? a - b : b - a;
}

uint64_t ulpDistanceAt(const Literal& a, const Literal& e, int64_t i) {
  DType t = a.dtype();
  if (!isComplex(t)) return ulpDistance(a.bitsAt(i), e.bitsAt(i), t);
  DType part = complexPart(t);
  auto bits = [&](double v) { return floatToBits(v, part); };
  auto x = a.complexAt(i), y = e.complexAt(i);
  return std::max(ulpDistance(bits(x.real()), bits(y.real()), part),
                  ulpDistance(bits(x.imag()), bits(y.imag()), part));
}

void expectClose(const Op& op, const Literal& actual, const Literal& expected, uint64_t minUlp, uint64_t maxUlp) {
  checkSameShape(op, actual, expected);
  DType t = actual.dtype();
  if (!isFloat(t) && !isComplex(t)) fail(op, "needs float or complex values, got " + actual.type().str());
  // Like the reference checker, look at every element and report them all.
  std::string bad;
  int64_t failures = 0;
  for (int64_t i = 0, n = actual.numElements(); i < n; ++i) {
    uint64_t d = ulpDistanceAt(actual, expected, i);
    if (d >= minUlp && d <= maxUlp) continue;
    if (++failures <= 5) {
      bad += (bad.empty() ? "" : "; ") + std::string("element ") + indexText(i, actual.shape()) + ": got " +
             elementText(actual, i) + ", expected " + elementText(expected, i) + ", " +
             (d == UINT64_MAX ? std::string("not comparable") : std::to_string(d) + " ULP");
    }
  }
  if (failures > 0) {
    fail(op, std::to_string(failures) + " element(s) outside [" + std::to_string(minUlp) + ", " +
                 std::to_string(maxUlp) + "] ULP: " + bad + (failures > 5 ? "; ..." : ""));
  }
}

// ---- kernels ----

double tolerance(const Op& op) { return op.attrOrDefault("tolerance").asFloat(); }

HostValues expectEqK(const Op& op, const HostValues& v, EvalContext&) {
  expectEq(op, v[0].tensor(), v[1].tensor());
  return {};
}
HostValues expectEqConstK(const Op& op, const HostValues& v, EvalContext&) {
  expectEq(op, v[0].tensor(), op.attr("value").asDense());
  return {};
}
HostValues expectAlmostEqK(const Op& op, const HostValues& v, EvalContext&) {
  expectAlmostEq(op, v[0].tensor(), v[1].tensor(), tolerance(op));
  return {};
}
HostValues expectAlmostEqConstK(const Op& op, const HostValues& v, EvalContext&) {
  expectAlmostEq(op, v[0].tensor(), op.attr("value").asDense(), tolerance(op));
  return {};
}
HostValues expectCloseK(const Op& op, const HostValues& v, EvalContext&) {
  expectClose(op, v[0].tensor(), v[1].tensor(),
              static_cast<uint64_t>(op.attrOrDefault("min_ulp_difference").asInt()),
              static_cast<uint64_t>(op.attrOrDefault("max_ulp_difference").asInt()));
  return {};
}

}  // namespace

HostValues customCallCheck(const Op& op, OpCode check, const HostValues& v) {
  const Literal& actual = v[0].tensor();
  const Literal& expected = v[1].tensor();
  switch (check) {
    case ops::CheckExpectEq: expectEq(op, actual, expected); break;
    case ops::CheckExpectAlmostEq: expectAlmostEq(op, actual, expected, 1e-3); break;
    default: expectClose(op, actual, expected, 0, 3); break;
  }
  return {};
}

void addCheckKernels(KernelTable& t) {
  t.set(ops::CheckExpectEq, &expectEqK);
  t.set(ops::CheckExpectEqConst, &expectEqConstK);
  t.set(ops::CheckExpectAlmostEq, &expectAlmostEqK);
  t.set(ops::CheckExpectAlmostEqConst, &expectAlmostEqConstK);
  t.set(ops::CheckExpectClose, &expectCloseK);
}

}  // namespace kiln::interp
