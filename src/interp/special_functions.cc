// Special functions in double precision: erf⁻¹ by Halley iteration on erf/erfc from a
// closed-form first guess, digamma by recurrence and its asymptotic series (with a
// Taylor series around its positive root, where the recurrence would cancel), I1e by
// Cephes' Chebyshev series, and log-gamma through the re-entrant libm call.
#include "interp/special_functions.h"

#include <math.h>  // lgamma_r

#include <cmath>
#include <iterator>
#include <limits>

#include "kernels/double_double.h"
#include "support/special_coefficients.h"

namespace kiln::interp {
using namespace kernels;  // NOLINT: the shared element functions (kernels/)
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kTwoOverSqrtPi = 1.128379167095512573896158903121545172;
using coefficients::kDigammaRootHi;
using coefficients::kDigammaRootLo;
using coefficients::kDigammaRootSeries;
using coefficients::kI1eA;
using coefficients::kI1eB;

}  // namespace

double erfInv(double y) {
  if (std::isnan(y) || std::fabs(y) > 1) return kNaN;
  double ay = std::fabs(y);
  if (ay == 1) return std::copysign(kInf, y);
  if (ay == 0) return y;
  double x;
  if (ay < 1e-3) {
    // erf⁻¹(y) = (√π/2)(y + (π/12) y³ + ...)
    x = ay / kTwoOverSqrtPi * (1 + kPi / 12 * ay * ay);
  } else {
    // Winitzki's closed form, good to about 2e-3 relative. (1 - y)(1 + y) keeps 1 - y² exact
    // enough near y = 1, where 1 - y is exact.
    constexpr double a = 0.147;
    double ln = std::log((1 - ay) * (1 + ay));
    double t = 2 / (kPi * a) + ln / 2;
    x = std::sqrt(std::sqrt(t * t - ln / a) - t);
  }
  // Halley's method on f(x) = erf(x) - y: f' = (2/√π) e^{-x²}, f'' = -2x f'. Near y = 1,
  // f = (1 - y) - erfc(x) keeps its digits (1 - y is exact there).
  for (int iter = 0; iter < 8; ++iter) {
    double f = ay <= 0.5 ? std::erf(x) - ay : (1 - ay) - std::erfc(x);
    double fp = kTwoOverSqrtPi * std::exp(-x * x);
    if (fp == 0) break;
    double ratio = f / fp;
    double dx = ratio / (1 + x * ratio);
    x -= dx;
    if (std::fabs(dx) <= 1e-17 * x) break;
  }
  return std::copysign(x, y);
}

double logGamma(double x) {
#if defined(__GLIBC__) || defined(__APPLE__) || defined(__FreeBSD__)
  int sign;
  return ::lgamma_r(x, &sign);
#else
  return std::lgamma(x);
#endif
}

namespace {

// ψ(x0 + d) from the series, d given as d = dHi - kDigammaRootHi - kDigammaRootLo.
double digammaNearRoot(double dHi) {
  double d = (dHi - kDigammaRootHi) - kDigammaRootLo;  // exact to ~2^-106
  double p = 0;
  for (int k = static_cast<int>(std::size(kDigammaRootSeries)) - 1; k >= 0; --k) {
    p = p * d + kDigammaRootSeries[k];
  }
  return p * d;
}

// ψ(x) for x > 0.
double digammaPositive(double x) {
  if (x >= 1 && x <= 2) return digammaNearRoot(x);
  if (x < 1) {
    // ψ(x) = ψ(x + 1) - 1/x; x + 1 - x0 is formed without rounding x + 1.
    double d = (x - (kDigammaRootHi - 1)) - kDigammaRootLo;
    double p = 0;
    for (int k = static_cast<int>(std::size(kDigammaRootSeries)) - 1; k >= 0; --k) {
      p = p * d + kDigammaRootSeries[k];
    }
    return p * d - 1 / x;
  }
  if (x < 3) return digammaNearRoot(x - 1) + 1 / (x - 1);  // x - 1 is exact here
  // ψ(x) = ψ(x + n) - Σ 1/(x + k) up to x + n >= 10, then the asymptotic series
  // ψ(y) = ln y - 1/(2y) - Σ B₂ₖ / (2k y²ᵏ). The sum is kept in double-double.
  DoubleDouble sum;
  DoubleDouble y{x, 0};
  while (y.hi < 10) {
    sum = ddAdd(sum, ddDiv(DoubleDouble{1, 0}, y));
    y = ddAdd(y, 1.0);
  }
  double inv = 1 / y.hi, inv2 = inv * inv;
  double tail = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 -
                inv2 * (1.0 / 132 - inv2 * (691.0 / 32760 - inv2 * (1.0 / 12)))))));
  double asym = std::log(y.hi) + y.lo / y.hi - inv / 2 - tail;
  return (asym - sum.hi) - sum.lo;
}

}  // namespace

double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return -kInf;
  if (std::isinf(x)) return x > 0 ? kInf : kNaN;
  if (x > 0) return digammaPositive(x);
  if (x == std::floor(x)) return kNaN;  // poles at the negative integers
  // Reflection: ψ(x) = ψ(1 - x) - π cot(πx); the cotangent is taken of x reduced by its
  // nearest integer (exact), so that πx never loses the fraction.
  double t = x - std::nearbyint(x);
  return digammaPositive(1 - x) - kPi / std::tan(kPi * t);
}

namespace {

// Clenshaw's recurrence for a Chebyshev series Σ' c_k T_k(y/2), Cephes' chbevl convention.
template <size_t N>
double chebyshev(double y, const double (&c)[N]) {
  double b0 = 0, b1 = 0, b2 = 0;
  for (double ck : c) {
    b2 = b1;
    b1 = b0;
    b0 = y * b1 - b2 + ck;
  }
  return (b0 - b2) / 2;
}

}  // namespace

double besselI1e(double x) {
  if (std::isnan(x)) return x;
  double z = std::fabs(x);
  double r = z <= 8 ? chebyshev(z / 2 - 2, kI1eA) * z : chebyshev(32 / z - 2, kI1eB) / std::sqrt(z);
  return std::copysign(r, x);  // odd; keeps the sign of ±0
}

}  // namespace kiln::interp
