// Special functions in double precision: erf⁻¹ by Halley iteration on erf/erfc from a
// closed-form first guess, digamma by recurrence and its asymptotic series (with a
// Taylor series around its positive root, where the recurrence would cancel), I1e by
// Cephes' Chebyshev series, and log-gamma through the re-entrant libm call.
#include "interp/special_functions.h"

#include <math.h>  // lgamma_r

#include <cmath>
#include <iterator>
#include <limits>

#include "interp/double_double.h"

namespace kiln::interp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kTwoOverSqrtPi = 1.128379167095512573896158903121545172;

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

// ψ on [1, 2] as its Taylor series around the positive root x0: ψ(x) = Σ c_k (x - x0)^k,
// c_k = ψ⁽ᵏ⁾(x0)/k! (computed with mpmath). |x - x0| <= 0.54 and the terms fall by a factor
// 0.68 |x - x0|, so 36 terms reach double precision; unlike the recurrence below, this keeps
// full relative accuracy around the root.
constexpr double kDigammaRootHi = 1.4616321449683622;
constexpr double kDigammaRootLo = 9.549995429965697e-17;
constexpr double kDigammaRootSeries[] = {
    0.9676722454476212, -0.4427631689835921, 0.258499760955651,
    -0.16394270544240652, 0.10782405069126237, -0.07219956125645471,
    0.04880428816414311, -0.03316112647484736, 0.022597648232218104,
    -0.01542476590494896, 0.010538791616612175, -0.007204534386356869,
    0.004926781395729853, -0.003369801655439328, 0.002305126326734928,
    -0.0015769367714301972, 0.0010788252019162967, -0.0007380709389960052,
    0.000504953265834602, -0.0003454680251063077, 0.00023635601564027053,
    -0.00016170622091974803, 0.0001106337276874741, -7.569179582195066e-05,
    5.178575795222081e-05, -3.5430070947659604e-05, 2.424006611860132e-05,
    -1.6584242271854135e-05, 1.134638458466385e-05, -7.762817668462094e-06,
    5.3110609208898636e-06, -3.6336507898010456e-06, 2.486022733129538e-06,
    -1.7008538854332607e-06, 1.1636675363548843e-06, -7.96142543124197e-07,
};

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

// Cephes' Chebyshev coefficients for exp(-x) I1(x) / x on [0, 8] (in y = x/2 - 2) and
// exp(-x) I1(x) sqrt(x) on (8, inf) (in y = 32/x - 2).
constexpr double kI1eA[] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1};
constexpr double kI1eB[] = {
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1};

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
