// Complex elementary functions in double precision. The textbook formulas lose most of
// their digits near |z| = 1 (log), z = -1 (log1p), z = ±1 (asin, acos, atanh) and at the
// ends of the exponent range; these follow Hull, Fairgrieve & Tang (asin/acos) and Kahan
// ("Branch cuts for complex elementary functions"), with double-double arithmetic where
// a difference of nearly equal squares has to be exact.
#include "kernels/complex_math.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "kernels/double_double.h"

namespace kiln::kernels {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kLn2 = 0.693147180559945309417232121458176568;
// Squares of magnitudes inside [2^-500, 2^500] neither overflow nor lose bits to underflow.
constexpr double kBig = 0x1p500;
constexpr double kSmall = 0x1p-500;

// log(d.hi + d.lo) for a double-double d > 0.
double logDD(DoubleDouble d) { return std::log(d.hi) + d.lo / d.hi; }

// log1p(d.hi + d.lo) for a double-double d > -1.
double log1pDD(DoubleDouble d) { return std::log1p(d.hi) + d.lo / (1 + d.hi); }

// x² + y² as a double-double, for magnitudes in [kSmall, kBig].
DoubleDouble sumOfSquares(double x, double y) { return ddAdd(twoSquare(x), twoSquare(y)); }

}  // namespace

double logHypot(double x, double y) {
  double ax = std::fabs(x), ay = std::fabs(y);
  if (std::isinf(ax) || std::isinf(ay)) return kInf;
  if (std::isnan(ax) || std::isnan(ay)) return kNaN;
  double mx = std::max(ax, ay), mn = std::min(ax, ay);
  if (mx == 0) return -kInf;
  if (mx >= kSmall && mx <= kBig) {
    // log|z|² with |z|² exact in double-double: log is well-conditioned at any point,
    // so even |z|² ≈ 1 comes out with its full relative accuracy.
    return logDD(sumOfSquares(mx, mn)) / 2;
  }
  // |log(mx)| > 346 dominates the correction, whose rounding then does not matter.
  double r = mn / mx;
  return std::log(mx) + std::log1p(r * r) / 2;
}

ComplexD accurateLog(ComplexD z) {
  double x = z.real(), y = z.imag();
  if (std::isnan(x) || std::isnan(y)) {
    return {(std::isinf(x) || std::isinf(y)) ? kInf : kNaN, kNaN};
  }
  return {logHypot(x, y), std::atan2(y, x)};
}

ComplexD accurateLog1p(ComplexD z) {
  double x = z.real(), y = z.imag();
  if (std::isnan(x) || std::isnan(y)) {
    return {(std::isinf(x) || std::isinf(y)) ? kInf : kNaN, kNaN};
  }
  DoubleDouble xp1 = twoSum(1, x);  // 1 + x exactly
  double im = std::atan2(y, xp1.hi);
  double ax = std::fabs(x), ay = std::fabs(y);
  if (std::isinf(ax) || std::isinf(ay)) return {kInf, im};
  if (std::max(ax, ay) > kBig) return {logHypot(xp1.hi, y), im};  // 1 is negligible
  // m = |1 + z|² - 1 = 2x + x² + y², exact in double-double.
  DoubleDouble m = ddAdd(ddAdd(DoubleDouble{2 * x, 0}, twoSquare(x)), twoSquare(y));
  if (m.hi > -0.5) return {log1pDD(m) / 2, im};
  // Near z = -1, |1 + z| itself is small: take its log from 1 + x (exact here) and y.
  double u = xp1.hi + xp1.lo;
  double mx = std::max(std::fabs(u), ay);
  if (mx >= kSmall) {
    DoubleDouble d = ddAdd(ddAdd(twoSquare(xp1.hi), DoubleDouble{2 * xp1.hi * xp1.lo, 0}),
                           twoSquare(y));
    return {logDD(d) / 2, im};
  }
  return {logHypot(u, y), im};
}

ComplexD accurateExp(ComplexD z) {
  double x = z.real(), y = z.imag();
  if (y == 0 && !std::isnan(x)) return {std::exp(x), y};  // exp of a real, even at ±inf
  // An infinite or NaN angle has no cosine: NaN, whatever exp(x) is (mpmath's limit,
  // which the conformance data follow, rather than Annex G's ±inf or ±0 there).
  if (!std::isfinite(y)) return {kNaN, kNaN};
  if (std::isinf(x)) {
    if (x < 0) return {0 * std::cos(y), 0 * std::sin(y)};
    return {kInf * std::cos(y), kInf * std::sin(y)};
  }
  double c = std::cos(y), s = std::sin(y);
  if (x > 700 || x < -700) {
    // exp(x) alone would overflow or lose bits to underflow while exp(x)·cos(y) need not:
    // scale by exp(x / 2) twice.
    double e = std::exp(x / 2);
    return {(e * c) * e, (e * s) * e};
  }
  double e = std::exp(x);
  return {e * c, e * s};
}

ComplexD accurateSqrt(ComplexD z) {
  double x = z.real(), y = z.imag();
  if (std::isinf(y)) return {kInf, y};
  if (std::isnan(x)) return {kNaN, kNaN};
  if (std::isinf(x)) {
    if (x > 0) return {kInf, std::isnan(y) ? kNaN : std::copysign(0.0, y)};
    return {std::isnan(y) ? kNaN : 0.0, std::copysign(kInf, y)};
  }
  if (std::isnan(y)) return {kNaN, kNaN};
  if (x == 0 && y == 0) return {0.0, y};
  double ax = std::fabs(x), ay = std::fabs(y);
  // Scale by an even power of two so that |x| + |z| neither overflows nor loses the low
  // bits of subnormals.
  int k = 0;
  double mx = std::max(ax, ay);
  if (mx > 0x1p1000) k = -2;
  else if (mx < 0x1p-1000) k = 600;
  ax = std::ldexp(ax, k);
  ay = std::ldexp(ay, k);
  double t = std::sqrt((ax + std::hypot(ax, ay)) / 2);  // sqrt((|x| + |z|) / 2), no cancellation
  double u = ay / (2 * t);
  t = std::ldexp(t, -k / 2);
  u = std::ldexp(u, -k / 2);
  if (x >= 0) return {t, std::copysign(u, y)};
  return {u, std::copysign(t, y)};
}

ComplexD accurateSquare(ComplexD z) {
  double x = z.real(), y = z.imag();
  // (x - y)(x + y) avoids x² - y² cancelling; finite |x| = |y| is exactly 0 even where
  // x + y overflows (inf - inf stays NaN).
  double re = std::fabs(x) == std::fabs(y) && std::isfinite(x) ? 0.0 : (x - y) * (x + y);
  return {re, 2 * (x * y)};
}

namespace {

// asin and acos together, after Hull, Fairgrieve & Tang, "Implementing the complex arcsine
// and arccosine functions using exception handling" (ACM TOMS 23(3), 1997). With
// a = (|z + 1| + |z - 1|) / 2 for z = x + iy in the first quadrant:
//   asin(z) = asin(x / a) + i log(a + sqrt(a² - 1)),  acos(z) = acos(x / a) - i (same).
// The real parts are atan2(x, d) and atan2(d, x) with d = sqrt(a² - x²) (written without
// cancellation); the imaginary part is log1p(a - 1 + sqrt((a - 1)(a + 1))) with a - 1
// also written without cancellation, and asymptotic forms where squares would overflow
// or underflow. The regions are Hull et al.'s, merged as in the functional_algorithms
// project (the algorithm behind StableHLO's CHLO asin/acos decomposition): three for the
// real part, four for the imaginary part.
struct AsinAcos {
  double asinRe, acosRe, im;  // im >= 0: the unsigned imaginary magnitude
};

AsinAcos asinAcosKernel(double sx, double sy) {
  const double safeMin = std::sqrt(DBL_MIN) * 4;
  const double safeMax = std::sqrt(DBL_MAX) / 8;
  double x = std::fabs(sx), y = std::fabs(sy);
  AsinAcos out;
  if (std::isnan(x) || std::isnan(y)) {
    // Annex G: an infinite part still makes the imaginary part infinite, and the real
    // part survives only for x = ±0.
    out.im = (std::isinf(x) || std::isinf(y)) ? kInf : kNaN;
    out.asinRe = (x == 0) ? sx : kNaN;
    out.acosRe = (x == 0) ? kPi / 2 : kNaN;
    return out;
  }
  // Infinite parts flow through the huge-|z| forms below: d = y, im = log(inf).
  double xp1 = x + 1, xm1 = x - 1;
  double r = std::hypot(xp1, y), s = std::hypot(xm1, y);
  double a = (r + s) / 2;
  double ap1 = a + 1;
  double rpxp1 = r + xp1, spxm1 = s + xm1, smxm1 = s - xm1;
  double yy = y * y;
  double halfApx = (a + x) / 2;
  double d;  // sqrt(a² - x²) = sqrt((a + x)(a - x))
  if (std::max(x, y) >= safeMax) {
    d = y;  // a ≈ |z|, so a² - x² ≈ y²
  } else if (x <= 1) {
    d = std::sqrt(halfApx * (yy / rpxp1 + smxm1));
  } else {
    d = y * std::sqrt(halfApx / rpxp1 + halfApx / spxm1);
  }
  out.asinRe = std::atan2(sx, d);
  out.acosRe = std::atan2(d, sx);

  bool tinyY = y < safeMin && x < 1;
  double am1;  // a - 1
  if (tinyY) am1 = -((xp1 * xm1) / ap1);
  else if (x >= 1) am1 = yy / 2 / rpxp1 + spxm1 / 2;
  else if (a <= 1.5) am1 = yy / 2 / rpxp1 + yy / 2 / smxm1;
  else am1 = a - 1;
  // For huge |z|: log(a + sqrt(a² - 1)) ≈ log(2a) with a ≈ |z| = y sqrt(1 + (x/y)²). The
  // threshold moves with x so the same form also covers x large but negligible next to y.
  double safeMaxOpt = x < safeMax * 1e12 ? safeMax * 1e-6 : safeMax * 1e2;
  bool bigY = y >= safeMaxOpt;
  double mx = bigY ? y : x;
  if (mx >= (bigY ? safeMaxOpt : safeMax)) {
    double xoy = bigY && !std::isinf(y) ? x / y : 0.0;
    out.im = kLn2 + std::log(mx) + std::log1p(xoy * xoy) / 2;
  } else {
    double sq = std::sqrt(am1 * ap1);
    out.im = tinyY ? y / sq : std::log1p(am1 + sq);
  }
  return out;
}

}  // namespace

ComplexD accurateAsin(ComplexD z) {
  AsinAcos k = asinAcosKernel(z.real(), z.imag());
  return {k.asinRe, std::signbit(z.imag()) ? -k.im : k.im};
}

ComplexD accurateAcos(ComplexD z) {
  AsinAcos k = asinAcosKernel(z.real(), z.imag());
  return {k.acosRe, std::signbit(z.imag()) ? k.im : -k.im};
}

ComplexD accurateAsinh(ComplexD z) {
  // asinh(z) = -i asin(iz)
  ComplexD w = accurateAsin(ComplexD(-z.imag(), z.real()));
  return {w.imag(), -w.real()};
}

ComplexD accurateAcosh(ComplexD z) {
  // acosh(z) = ±i acos(z), the sign chosen so that the real part is non-negative.
  ComplexD w = accurateAcos(z);
  return {std::fabs(w.imag()), std::signbit(z.imag()) ? -w.real() : w.real()};
}

ComplexD accurateAtanh(ComplexD z) {
  // atanh(z) = log((1 + z) / (1 - z)) / 2:
  //   re = log1p(4|x| / ((1 - |x|)² + y²)) / 4, odd in x;
  //   im = atan2(2y, (1 - x)(1 + x) - y²) / 2.
  double x = z.real(), y = z.imag();
  double ax = std::fabs(x), ay = std::fabs(y);
  if (std::isnan(x) || std::isnan(y)) {
    if (std::isinf(ax)) return {std::copysign(0.0, x), kNaN};
    if (std::isinf(ay)) return {std::copysign(0.0, x), std::copysign(kPi / 2, y)};
    if (x == 0 && std::isnan(y)) return {x, kNaN};
    return {kNaN, kNaN};
  }
  double mx = std::max(ax, ay);
  if (mx > kBig) {
    // atanh(z) ≈ 1/z: re = x / |z|², im = ±π/2 (the remainder is below an ulp).
    double re = 0;
    if (std::isfinite(mx)) {
      double sx = ax / mx, sy = ay / mx;
      re = sx / (sx * sx + sy * sy) / mx;
    }
    return {std::copysign(re, x), std::copysign(kPi / 2, y)};
  }
  double re;
  DoubleDouble omx = twoSum(1, -ax);  // 1 - |x| exactly
  DoubleDouble den = ddAdd(ddAdd(twoSquare(omx.hi), DoubleDouble{2 * omx.hi * omx.lo, 0}),
                           twoSquare(y));  // |1 - z|² (for x >= 0)
  if (den.hi > 4 * ax * 0x1p-20) {
    DoubleDouble q = ddDiv(DoubleDouble{4 * ax, 0}, den);
    re = log1pDD(q) / 4;
  } else {
    // Close to z = ±1 the quotient is huge (or overflows): difference of logs instead.
    re = (logHypot(1 + ax, ay) - logHypot(omx.hi + omx.lo, ay)) / 2;
  }
  // 1 - x² - y², exact in double-double even when |z| ≈ 1.
  DoubleDouble dx = twoSquare(ax), dy = twoSquare(ay);
  DoubleDouble c = ddAdd(ddAdd(DoubleDouble{1, 0}, DoubleDouble{-dx.hi, -dx.lo}),
                         DoubleDouble{-dy.hi, -dy.lo});
  double im = std::atan2(2 * y, c.hi + c.lo) / 2;
  return {std::copysign(re, x), im};
}

ComplexD accurateAtan(ComplexD z) {
  // atan(z) = -i atanh(iz)
  ComplexD w = accurateAtanh(ComplexD(-z.imag(), z.real()));
  return {w.imag(), -w.real()};
}

}  // namespace kiln::kernels
