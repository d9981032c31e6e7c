// The executable decompositions of the CHLO elementwise math functions: formulas over
// StableHLO's own functions (atan2, log1p, expm1, exp, sqrt, tan, ...) and published
// rational and Chebyshev approximations. Unlike the structural decompositions these are
// not bit for bit: each is accurate within the bound its test states (in ULP; relative for
// complex operands; tests/passes/lower_chlo_test.cc), and the interpreter's kernels, which
// evaluate in double and round once, stay the oracle. f32 and f64 are computed in their
// own type; narrower floats in f32, rounded once at the end (as XLA does). Complex
// operands of the inverse functions and of cosh and sinh are formulas over their real and
// imaginary parts in the part type (the kernel's algorithms: Hull et al.'s asin and acos,
// its atanh, cosh x·cos y + i·sinh x·sin y); complex tan is StableHLO's own.
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>

#include "ir/builder.h"
#include "ir/chlo_decompositions.h"
#include "ir/ops/stablehlo.h"
#include "support/special_coefficients.h"

namespace kiln {
namespace {

using D = ComparisonDirection;

constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kLn2 = 0.693147180559945309417232121458176568;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEulerGamma = 0.577215664901532860606512090082402431;

// A value being built: arithmetic on it emits StableHLO ops through the builder and plain
// numbers become splats of its type, so that the formulas below read as formulas.
struct V {
  Builder* b;
  Value* v;
  V splat(double c) const { return {b, b->splat(v->type(), c)}; }
  bool isF64() const { return v->type().dtype() == DType::F64; }
};

V apply(OpCode code, V x) { return {x.b, x.b->unary(code, x.v)}; }
V apply(OpCode code, V x, V y) { return {x.b, x.b->binary(code, x.v, y.v)}; }

// Arithmetic, with plain numbers on either side.
template <OpCode kCode>
V arithmetic(V x, V y) {
  return apply(kCode, x, y);
}
template <OpCode kCode>
V arithmetic(V x, double c) {
  return apply(kCode, x, x.splat(c));
}
template <OpCode kCode>
V arithmetic(double c, V x) {
  return apply(kCode, x.splat(c), x);
}
template <class L, class R>
V operator+(L x, R y) requires(std::is_same_v<L, V> || std::is_same_v<R, V>) {
  return arithmetic<ops::Add>(x, y);
}
template <class L, class R>
V operator-(L x, R y) requires(std::is_same_v<L, V> || std::is_same_v<R, V>) {
  return arithmetic<ops::Subtract>(x, y);
}
template <class L, class R>
V operator*(L x, R y) requires(std::is_same_v<L, V> || std::is_same_v<R, V>) {
  return arithmetic<ops::Multiply>(x, y);
}
template <class L, class R>
V operator/(L x, R y) requires(std::is_same_v<L, V> || std::is_same_v<R, V>) {
  return arithmetic<ops::Divide>(x, y);
}
V operator-(V x) { return apply(ops::Negate, x); }

// The unary functions, named as in <cmath>.
template <OpCode kCode>
V function(V x) {
  return apply(kCode, x);
}
constexpr auto abs = &function<ops::Abs>;
constexpr auto sign = &function<ops::Sign>;
constexpr auto floor = &function<ops::Floor>;
constexpr auto sqrt = &function<ops::Sqrt>;
constexpr auto exp = &function<ops::Exponential>;
constexpr auto expm1 = &function<ops::ExponentialMinusOne>;
constexpr auto log = &function<ops::Log>;
constexpr auto log1p = &function<ops::LogPlusOne>;
constexpr auto sin = &function<ops::Sine>;
constexpr auto tan = &function<ops::Tan>;
V atan2(V y, V x) { return apply(ops::Atan2, y, x); }

V cmp(V x, D dir, V y) { return {x.b, x.b->compare(x.v, y.v, dir)}; }
V cmp(V x, D dir, double c) { return cmp(x, dir, x.splat(c)); }
V both(V p, V q) { return apply(ops::And, p, q); }
V select(V p, V a, V b) { return {p.b, p.b->select(p.v, a.v, b.v)}; }
V select(V p, double a, V b) { return select(p, b.splat(a), b); }

// Σ c[i] x^(n-1-i): the coefficients from the highest power down (Horner).
V polynomial(V x, std::span<const double> c) {
  V p = x.splat(c[0]);
  for (size_t i = 1; i < c.size(); ++i) p = p * x + c[i];
  return p;
}

// A real formula, given the operand in the type it computes in.
using Formula = V (*)(V x);

// Applies `f` to the operand: f32 and f64 as they are, other floats in f32 (converted in
// and back, so rounded once), complex and integer operands not at all (declines).
std::vector<Value*> realFormula(Builder& b, const Op& op, Formula f) {
  Value* x = op.operand(0);
  DType t = x->type().dtype();
  if (!isFloat(t)) return {};
  if (t == DType::F32 || t == DType::F64) return {f(V{&b, x}).v};
  return {b.convert(f(V{&b, b.convert(x, DType::F32)}).v, t)};
}

// From here on log(2x) is the function to the working precision (asinh, acosh: the
// neglected term is 1/(4x²) relative to log(2x)), and squaring x stays finite below it.
double largeArgument(V x) {
  return x.isF64() ? 0x1p28 : 0x1p13;
}

// ---- inverse trigonometric and hyperbolic functions ----

// (1 - x)(1 + x) rather than 1 - x²: exact factors near |x| = 1, where 1 - x² cancels.
V oneMinusSquare(V x) {
  return (1.0 - x) * (1.0 + x);
}

V acosFormula(V x) {
  // 2·atan2(0, 0) would give 0 at x = -1.
  return select(cmp(x, D::EQ, -1.0), kPi, 2.0 * atan2(sqrt(oneMinusSquare(x)), 1.0 + x));
}

// asin(x) = x to the working precision below 2^-12 (f32) or 2^-27 (f64), where the
// half angle of the atan2 form would underflow for the smallest subnormals.
V asinFormula(V x) {
  V r = 2.0 * atan2(x, 1.0 + sqrt(oneMinusSquare(x)));
  return select(cmp(abs(x), D::LT, x.isF64() ? 0x1p-27 : 0x1p-12), x, r);
}

V atanFormula(V x) {
  return atan2(x, x.splat(1.0));
}

// acosh(x) = log1p(t + sqrt(t(x + 1))) with t = x - 1 (exact near 1, where log would lose
// the small result); log(x) + log 2 once x² + ... no longer matters.
V acoshFormula(V x) {
  V t = x - 1.0;
  V r = select(cmp(x, D::GE, largeArgument(x)), log(x) + kLn2, log1p(t + sqrt(t * (x + 1.0))));
  return select(cmp(x, D::LT, 1.0), kNaN, r);
}

// asinh(|x|) = log1p(|x| + x²/(1 + sqrt(1 + x²))), odd; log(|x|) + log 2 for large |x|.
// The sign is a product with sign(x), which keeps -0 and NaN.
V asinhFormula(V x) {
  V a = abs(x);
  V a2 = a * a;
  V r = select(cmp(a, D::GE, largeArgument(x)), log(a) + kLn2,
               log1p(a + a2 / (1.0 + sqrt(1.0 + a2))));
  return r * sign(x);
}

// atanh(x) = (log1p(x) - log1p(-x)) / 2: ±inf at ±1 and NaN beyond from log1p itself.
V atanhFormula(V x) {
  return 0.5 * (log1p(x) - log1p(-x));
}

// ---- hyperbolic functions ----

// Below f64 the kernel evaluates XLA's formula in f32 arithmetic (the conformance data
// are that formula's results), e^(x + log ½) ± e^(-x + log ½); these are the same ops.
double logHalfF32() {
  return static_cast<double>(std::log(0.5f));
}

// e^a / 2 for a >= 20 without overflowing before the result does: (e^(a/2) / 2)·e^(a/2).
V halfExpLarge(V a) {
  V h = exp(0.5 * a);
  return (0.5 * h) * h;
}

// e^a/2 · c for a >= 20 in the same way: ((e^(a/2)/2)·c)·e^(a/2), which overflows only
// where the product does (the complex functions' parts, c a cosine or sine).
V halfExpTimes(V a, V c) {
  V h = exp(0.5 * a);
  return ((0.5 * h) * c) * h;
}

// cosh a for 0 <= a < 20, where e^-a still counts: (e + 1/e)/2 with e = e^a.
V coshBelow20(V a) {
  V e = exp(a);
  return 0.5 * (e + 1.0 / e);
}

V coshFormula(V x) {
  if (!x.isF64()) return exp(x + logHalfF32()) + exp(logHalfF32() - x);
  V a = abs(x);
  return select(cmp(a, D::LT, 20.0), coshBelow20(a), halfExpLarge(a));
}

// sinh from expm1 where e^x - e^-x cancels: (e + e/(e + 1))/2 with e = expm1(x).
V sinhFromExpm1(V x) {
  V e = expm1(x);
  return 0.5 * (e + e / (e + 1.0));
}

V sinhFormula(V x) {
  if (!x.isF64())
    return select(cmp(abs(x), D::LT, 1.0), sinhFromExpm1(x),
                  exp(x + logHalfF32()) - exp(logHalfF32() - x));
  V a = abs(x);
  return select(cmp(a, D::LT, 20.0), sinhFromExpm1(a), halfExpLarge(a)) * sign(x);
}

// ---- the error function family (Cephes' rational approximations) ----

// erf(x) = x T(x²)/U(x²) for |x| < 1.
constexpr double kErfT[] = {9.60497373987051638749E0, 9.00260197203842689217E1,
                            2.23200534594684319226E3, 7.00332514112805075473E3,
                            5.55923013010394962768E4};
constexpr double kErfU[] = {1.0,
                            3.35617141647503099647E1,
                            5.21357949780152679795E2,
                            4.59432382970980127987E3,
                            2.26290000613890934246E4,
                            4.92673942608635921086E4};
// erfc(x) = e^(-x²) P(x)/Q(x) for 1 <= x < 8, e^(-x²) R(x)/S(x) for x >= 8.
constexpr double kErfcP[] = {
    2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
    4.86371970985681366614E1,   1.96520832956077098242E2,  5.26445194995477358631E2,
    9.34528527171957607540E2,   1.02755188689515710272E3,  5.57535335369399327526E2};
constexpr double kErfcQ[] = {1.0,
                             1.32281951154744992508E1,
                             8.67072140885989742329E1,
                             3.54937778887819891062E2,
                             9.75708501743205489753E2,
                             1.82390916687909736289E3,
                             2.24633760818710981792E3,
                             1.65666309194161350182E3,
                             5.57535340817727675546E2};
constexpr double kErfcR[] = {5.64189583547755073984E-1, 1.27536670759978104416E0,
                             5.01905042251180477414E0,  6.16021097993053585195E0,
                             7.40974269950448939160E0,  2.97886665372100240670E0};
constexpr double kErfcS[] = {1.0,
                             2.26052863220117276590E0,
                             9.39603524938001434673E0,
                             1.20489539808096656605E1,
                             1.70814450747565897222E1,
                             9.60896809063285878198E0,
                             3.36907645100081516050E0};

V erfSmall(V x) {
  V x2 = x * x;
  return x * polynomial(x2, kErfT) / polynomial(x2, kErfU);
}

// e^(-a²) for a >= 0 without the error of rounding a² (which grows with a²): with m = a
// rounded to a multiple of 1/128, m² is exact and a² - m² = (a - m)(a + m) small.
V expMinusSquare(V a) {
  V m = floor(a * 128.0 + 0.5) * (1.0 / 128);
  return exp(-(m * m)) * exp(-((a - m) * (a + m)));
}

// erfc(a) for a >= 1; 0 from where it underflows (which also keeps the unused
// polynomials' inf/inf out).
V erfcLarge(V a) {
  V pq = polynomial(a, kErfcP) / polynomial(a, kErfcQ);
  V rs = polynomial(a, kErfcR) / polynomial(a, kErfcS);
  V r = expMinusSquare(a) * select(cmp(a, D::LT, 8.0), pq, rs);
  return select(cmp(a, D::GE, a.isF64() ? 28.0 : 11.0), 0.0, r);
}

V erfFormula(V x) {
  V c = erfcLarge(abs(x));
  V large = select(cmp(x, D::LT, 0.0), c - 1.0, 1.0 - c);
  return select(cmp(abs(x), D::LT, 1.0), erfSmall(x), large);
}

V erfcFormula(V x) {
  V c = erfcLarge(abs(x));
  V large = select(cmp(x, D::LT, 0.0), 2.0 - c, c);
  return select(cmp(abs(x), D::LT, 1.0), 1.0 - erfSmall(x), large);
}

// ---- erf⁻¹ ----

// Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011), the single
// precision polynomials in w = -log(1 - x²): w < 5 in w - 2.5, else in sqrt(w) - 3.
constexpr double kGilesCentral[] = {2.81022636e-08,  3.43273939e-07, -3.5233877e-06,
                                    -4.39150654e-06, 0.00021858087,  -0.00125372503,
                                    -0.00417768164,  0.246640727,    1.50140941};
constexpr double kGilesTail[] = {-0.000200214257, 0.000100950558, 0.00134934322,
                                 -0.00367342844,  0.00573950773,  -0.0076224613,
                                 0.00943887047,   1.00167406,     2.83297682};

V erfInvGiles(V x) {
  V w = -log(oneMinusSquare(x));
  V p = select(cmp(w, D::LT, 5.0), polynomial(w - 2.5, kGilesCentral),
               polynomial(sqrt(w) - 3.0, kGilesTail));
  return p * x;
}

// f64: Giles' guess (about 1e-7 relative; worse in the far tail, which f32 never
// reaches) refined by Halley steps on f(z) = erf(z) - a for a = |y| <= 1/2, and on
// f(z) = (1 - a) - erfc(z) above, where 1 - a is exact and keeps the digits near 1.
V erfInvFormula(V y) {
  V a = abs(y);
  V z = abs(erfInvGiles(y));
  if (y.isF64()) {
    constexpr double kTwoOverSqrtPi = 1.128379167095512573896158903121545172;
    V upper = cmp(a, D::GT, 0.5);
    for (int step = 0; step < 3; ++step) {
      V erfc = select(cmp(z, D::LT, 1.0), 1.0 - erfSmall(z), erfcLarge(z));
      V f = select(upper, (1.0 - a) - erfc, erfSmall(z) - a);
      V ratio = f / (kTwoOverSqrtPi * expMinusSquare(z));
      z = z - ratio / (1.0 + z * ratio);
    }
  }
  return select(cmp(a, D::EQ, 1.0), kInf, z) * sign(y);
}

// ---- log-gamma and digamma ----

// Lanczos' approximation with g = 7 and 9 terms (the coefficients of Numerical Recipes
// and Boost, good to about 1e-15 relative in Γ): for z >= -1/2,
// Γ(z + 1) = sqrt(2π) t^(z + 1/2) e^(-t) A(z), t = z + g + 1/2, A(z) = c0 + Σ c_k/(z + k).
constexpr double kLanczosG = 7;
constexpr double kLanczos[] = {0.99999999999980993227684700473478,
                               676.520368121885098567009190444019,
                               -1259.13921672240287047156078755283,
                               771.3234287776530788486528258894,
                               -176.61502916214059906584551354,
                               12.507343278686904814458936853,
                               -0.13857109526572011689554707,
                               9.984369578019570859563e-6,
                               1.50563273514931155834e-7};

// log Γ(z + 1). (z + 1/2)·log t - t is formed as (z + 1/2 - t/log t)·log t so that it does
// not overflow before the result does.
V logGammaLanczos(V z) {
  V sum = z.splat(kLanczos[0]);
  for (size_t k = 1; k < std::size(kLanczos); ++k)
    sum = sum + kLanczos[k] / (z + static_cast<double>(k));
  V t = z + (kLanczosG + 0.5);
  V logT = log(t);
  return (0.5 * std::log(2 * kPi) + ((z + 0.5) - t / logT) * logT) + log(sum);
}

// x >= 1: log Γ((x - 1) + 1). 0 <= x < 1: log Γ(x + 1) - log x (no cancellation, and
// +inf at ±0). x < 0: reflection, log Γ(x) = log π - log |sin πx| - log Γ(1 - x), with
// sin π|x| taken of the fraction of |x| folded into [0, 1/2] (exact), so that it is exactly
// 0 at the poles (+inf there) and keeps its digits near them; below 2^-20 (f32) or 2^-50
// (f64) in magnitude, -log|x| - γx instead (πx would lose digits to subnormals). Exactly
// 0 at 1 and 2; +inf at ±inf.
V lgammaFormula(V x) {
  V negative = cmp(x, D::LT, 0.0);
  V belowOne = cmp(x, D::LT, 1.0);
  V lg = logGammaLanczos(select(negative, -x, select(belowOne, x, x - 1.0)));
  V ax = abs(x);
  V frac = ax - floor(ax);
  V s = sin(kPi * select(cmp(frac, D::GT, 0.5), 1.0 - frac, frac));
  V reflected = select(cmp(s, D::EQ, 0.0), kInf, (std::log(kPi) - log(s)) - lg);
  V r = select(negative, reflected, select(belowOne, lg - log(x), lg));
  r = select(both(negative, cmp(ax, D::LT, x.isF64() ? 0x1p-50 : 0x1p-20)),
             -log(ax) - kEulerGamma * x, r);
  r = select(apply(ops::Or, cmp(x, D::EQ, 1.0), cmp(x, D::EQ, 2.0)), 0.0, r);
  return select(cmp(ax, D::EQ, kInf), kInf, r);
}

// The Taylor series of ψ around its positive root x0 (the kernel's): ψ(x0 + d) for
// d = (x - x0_hi) - x0_lo, the root split into a head in x's type (so x - head is exact
// near the root) and the rest.
V digammaNearRoot(V x) {
  using coefficients::kDigammaRootHi;
  using coefficients::kDigammaRootLo;
  const auto& c = coefficients::kDigammaRootSeries;
  double head =
      x.isF64() ? kDigammaRootHi : static_cast<double>(static_cast<float>(kDigammaRootHi));
  double tail = (kDigammaRootHi - head) + kDigammaRootLo;
  V d = (x - head) - tail;
  V p = d.splat(c[std::size(c) - 1]);
  for (size_t k = std::size(c) - 1; k-- > 0;) p = p * d + c[k];
  return p * d;
}

// The asymptotic series ψ(y) = log y - 1/(2y) - Σ B₂ₖ/(2k y²ᵏ), to double precision for
// y >= 10.
V digammaAsymptotic(V y) {
  constexpr double kBernoulli[] = {1.0 / 12,  -691.0 / 32760, 1.0 / 132, -1.0 / 240,
                                   1.0 / 252, -1.0 / 120,     1.0 / 12};
  V inv2 = 1.0 / (y * y);
  return (log(y) - 0.5 / y) - polynomial(inv2, kBernoulli) * inv2;
}

// ψ(x) for x > 0: the series around the root on [1, 2]; the asymptotic series from 10;
// elsewhere ψ(x) = ψ(x + 10) - Σ_{k<10} 1/(x + k).
V digammaPositive(V x) {
  V sum = 1.0 / x;
  for (int k = 1; k < 10; ++k) sum = sum + 1.0 / (x + static_cast<double>(k));
  V shifted = digammaAsymptotic(x + 10.0) - sum;
  V nearRoot = both(cmp(x, D::GE, 1.0), cmp(x, D::LE, 2.0));
  return select(nearRoot, digammaNearRoot(x),
                select(cmp(x, D::GE, 10.0), digammaAsymptotic(x), shifted));
}

// x < 0: ψ(x) = ψ(1 - x) - π/tan(πr), r = x less its nearest integer (exact); below
// 2^-20 (f32) or 2^-30 (f64) in magnitude, -1/x - γ (πr would lose digits to
// subnormals). As the kernel: -inf at ±0, NaN at the negative integers and -inf.
V digammaFormula(V x) {
  V r = x - apply(ops::RoundNearestEven, x);
  V reflected = digammaPositive(1.0 - x) - kPi / tan(kPi * r);
  V v = select(cmp(x, D::LT, 0.0), reflected, digammaPositive(x));
  v = select(cmp(abs(x), D::LT, x.isF64() ? 0x1p-30 : 0x1p-20), -1.0 / x - kEulerGamma, v);
  V pole = both(cmp(x, D::LT, 0.0), cmp(x, D::EQ, floor(x)));
  return select(cmp(x, D::EQ, 0.0), -kInf, select(pole, kNaN, v));
}

// ---- the scaled Bessel function I1e ----

// Clenshaw's recurrence for Σ' c_k T_k(y/2) (Cephes' chbevl), in the kernel's order.
V chebyshev(V y, std::span<const double> c) {
  V b0 = y.splat(0), b1 = b0, b2 = b0;
  for (double ck : c) {
    b2 = b1;
    b1 = b0;
    b0 = (y * b1 - b2) + ck;
  }
  return (b0 - b2) * 0.5;
}

// exp(-|x|) I1(x) = |x|·A(|x|/2 - 2) on [0, 8], B(32/|x| - 2)/sqrt(|x|) beyond; odd.
V besselI1eFormula(V x) {
  V z = abs(x);
  V small = chebyshev(z * 0.5 - 2.0, coefficients::kI1eA) * z;
  V large = chebyshev(32.0 / z - 2.0, coefficients::kI1eB) / sqrt(z);
  return select(cmp(z, D::LE, 8.0), small, large) * sign(x);
}


// ---- complex functions ----
// Over the real and imaginary parts, in the part type (f32 for complex<f32>, as the real
// formulas compute f32), with the kernel's algorithms and branch cuts (those of C99 Annex
// G and std::complex): the parts of z below are x and y.

// A complex value being built, as its real and imaginary parts.
struct Z {
  V re, im;
};

// The extremes of the part type.
double smallestNormal(V x) {
  return x.isF64() ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min();
}
double largestFinite(V x) {
  return x.isF64() ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max();
}

V maximum(V x, V y) { return apply(ops::Maximum, x, y); }
V minimum(V x, V y) { return apply(ops::Minimum, x, y); }
constexpr auto cos = &function<ops::Cosine>;

V either(V p, V q) { return apply(ops::Or, p, q); }
V isNaN(V x) { return cmp(x, D::NE, x); }
V isInf(V x) { return cmp(abs(x), D::EQ, kInf); }

// Whether the sign bit of x is set: -0 counts as negative (the side of a branch cut a
// signed zero picks).
V signBit(V x) {
  Value* bits = x.b->bitcastConvert(x.v, x.isF64() ? DType::I64 : DType::I32);
  return {x.b, x.b->compare(bits, x.b->splat(bits->type(), 0), D::LT)};
}

// m (>= 0) with the sign of s, as std::copysign.
V withSignOf(V m, V s) {
  return select(signBit(s), -m, m);
}

// |x + iy| without overflowing or underflowing a square: M·sqrt(1 + (m/M)²) with M, m the
// larger and smaller magnitude; M + M·r/2 where 1 + r rounds the root to 1 but r > 0 still
// counts; √2·M where m = M (0 and inf included, where m/M is NaN).
V hypot(V x, V y) {
  V ax = abs(x), ay = abs(y);
  V mx = maximum(ax, ay), mn = minimum(ax, ay);
  V ratio = mn / mx;
  V r = ratio * ratio;
  V root = sqrt(1.0 + r);
  V general =
      select(both(cmp(root, D::EQ, 1.0), cmp(r, D::GT, 0.0)), mx + 0.5 * (mx * r), mx * root);
  return select(cmp(mx, D::EQ, mn), std::sqrt(2.0) * mx, general);
}

// asin and acos of sx + i·sy together, after Hull, Fairgrieve & Tang, "Implementing the
// complex arcsine and arccosine functions using exception handling" (ACM TOMS 23(3), 1997),
// in the regions of the kernel (kernels/complex_math.cc) and of the functional_algorithms
// project, but in the part type. With a = (|z + 1| + |z - 1|)/2 for z = x + iy in the
// first quadrant: asin(z) = asin(x/a) + i·log(a + sqrt(a² - 1)), acos(z) = acos(x/a) - i·(the
// same). The real parts are atan2(x, d) and atan2(d, x) with d = sqrt(a² - x²) written
// without cancellation; the imaginary magnitude is log1p(a - 1 + sqrt((a - 1)(a + 1))) with
// a - 1 written without cancellation, y/sqrt(...) for tiny y, and log(2a) with a ≈ |z|
// where squares would overflow (infinite parts included).
struct AsinAcos {
  V asinRe, acosRe, im;  // im >= 0
};

AsinAcos asinAcos(V sx, V sy) {
  const double safeMin = std::sqrt(smallestNormal(sx)) * 4;
  const double safeMax = std::sqrt(largestFinite(sx)) / 8;
  V x = abs(sx), y = abs(sy);
  V xp1 = x + 1.0, xm1 = x - 1.0;
  V r = hypot(xp1, y), s = hypot(xm1, y);
  V a = 0.5 * (r + s);
  V ap1 = a + 1.0;
  V rpxp1 = r + xp1, spxm1 = s + xm1, smxm1 = s - xm1;
  V yy = y * y;
  V halfApx = 0.5 * (a + x);
  V huge = cmp(maximum(x, y), D::GE, safeMax);
  // d = sqrt((a + x)(a - x)); y itself once a ≈ |z|.
  V d = select(huge, y,
               select(cmp(x, D::LE, 1.0), sqrt(halfApx * (yy / rpxp1 + smxm1)),
                      y * sqrt(halfApx / rpxp1 + halfApx / spxm1)));

  V tinyY = both(cmp(y, D::LT, safeMin), cmp(x, D::LT, 1.0));
  V halfYyOverRpxp1 = (0.5 * yy) / rpxp1;
  V am1 = select(tinyY, -((xp1 * xm1) / ap1),
                 select(cmp(x, D::GE, 1.0), halfYyOverRpxp1 + 0.5 * spxm1,
                        select(cmp(a, D::LE, 1.5), halfYyOverRpxp1 + (0.5 * yy) / smxm1, a - 1.0)));
  // For huge |z|, log(2a) with a = y·sqrt(1 + (x/y)²); the threshold moves with x so that
  // the same form covers x large but negligible next to y.
  V safeMaxOpt =
      select(cmp(x, D::LT, safeMax * 1e12), x.splat(safeMax * 1e-6), x.splat(safeMax * 1e2));
  V bigY = cmp(y, D::GE, safeMaxOpt);
  V mx = select(bigY, y, x);
  V xoy = select(both(bigY, cmp(y, D::NE, kInf)), x / y, x.splat(0.0));
  V logTwoA = (kLn2 + log(mx)) + 0.5 * log1p(xoy * xoy);
  // At x = 1 with y subnormal, a - 1 = y/2 underflows, but (a - 1)(a + 1) = y.
  V sq = select(both(cmp(x, D::EQ, 1.0), cmp(y, D::LT, smallestNormal(x))), sqrt(y),
                sqrt(am1 * ap1));
  V im = select(cmp(mx, D::GE, select(bigY, safeMaxOpt, x.splat(safeMax))), logTwoA,
                select(tinyY, y / sq, log1p(am1 + sq)));
  // A NaN y (Annex G): the imaginary part is NaN unless x is infinite (the huge-|z| form
  // would make it log 2x), the real parts survive at x = ±0, as they are there for any y.
  im = select(both(isNaN(y), cmp(x, D::NE, kInf)), y, im);
  V onImaginaryAxis = cmp(x, D::EQ, 0.0);
  return {select(onImaginaryAxis, sx, atan2(sx, d)),
          select(onImaginaryAxis, kPi / 2, atan2(d, sx)), im};
}

Z asinComplex(Z z) {
  AsinAcos k = asinAcos(z.re, z.im);
  return {k.asinRe, withSignOf(k.im, z.im)};
}

Z acosComplex(Z z) {
  AsinAcos k = asinAcos(z.re, z.im);
  return {k.acosRe, withSignOf(k.im, -z.im)};
}

// asinh(z) = -i·asin(iz).
Z asinhComplex(Z z) {
  AsinAcos k = asinAcos(-z.im, z.re);
  return {withSignOf(k.im, z.re), -k.asinRe};
}

// acosh(z) = ±i·acos(z), the sign making the real part non-negative.
Z acoshComplex(Z z) {
  AsinAcos k = asinAcos(z.re, z.im);
  return {k.im, withSignOf(k.acosRe, z.im)};
}

// atanh(z) = log((1 + z)/(1 - z))/2 as the kernel writes it:
//   re = log1p(4|x|/((1 - |x|)² + y²))/4, odd in x (a sum of squares: no cancellation);
//   im = atan2(2y, (1 - x)(1 + x) - y²)/2 (exact factors near |x| = 1);
// near ±1, where the quotient passes 2^20 (and would overflow where (1 - |x|)² + y²
// underflows), the difference log|1 + |x| + iy| - log|1 - |x| - iy| instead. Beyond 2^30
// (f32) or 2^60 (f64), where the squares would overflow, atanh(z) ≈ 1/z + iπ/2·sign(y):
// re = x/|z|² (scaled by the larger part), im = ±π/2. An infinite part, even beside a NaN,
// gives re = ±0 (as x = ±0 does), and an infinite y im = ±π/2 (Annex G).
Z atanhComplex(Z z) {
  V x = z.re, y = z.im;
  V ax = abs(x), ay = abs(y);
  V omx = 1.0 - ax;
  V den = omx * omx + ay * ay;
  V nearOne = 0.5 * (log(hypot(1.0 + ax, ay)) - log(hypot(omx, ay)));
  V re = select(cmp(den, D::GT, (4.0 * 0x1p-20) * ax), 0.25 * log1p(4.0 * ax / den), nearOne);
  V im = 0.5 * atan2(2.0 * y, omx * (1.0 + ax) - ay * ay);
  V mx = maximum(ax, ay);  // NaN with a NaN part
  V sx = ax / mx, sy = ay / mx;
  V large = cmp(mx, D::GT, x.isF64() ? 0x1p60 : 0x1p30);
  re = select(large, sx / (sx * sx + sy * sy) / mx, re);
  re = select(either(either(isInf(x), isInf(y)), cmp(x, D::EQ, 0.0)), 0.0, re);
  im = select(either(large, isInf(y)), withSignOf(y.splat(kPi / 2), y), im);
  return {withSignOf(re, x), im};
}

// atan(z) = -i·atanh(iz).
Z atanComplex(Z z) {
  Z w = atanhComplex({-z.im, z.re});
  return {w.im, -w.re};
}

// cosh(x + iy) = cosh x·cos y + i·sinh x·sin y, with cosh |x| and sinh |x| from the real
// f64 formulas in the part type (the kernel's complex cosh is std::cosh, to which XLA's f32
// formula would add |x|·2⁻²⁴ relative error), and from 20 on e^|x|/2 multiplied into cos y
// and sin y between its halves, so that a part overflows only where it does. On the real
// axis the imaginary part is ±0 (y, negated for negative x), as sinh x·0 is NaN once
// sinh x overflows. Where y is infinite or NaN, so that cos y and sin y are NaN, Annex G
// keeps the factors that are 0 or infinite: re = +inf for infinite x, im = 0 for x = ±0.
Z coshComplex(Z z) {
  V a = abs(z.re);
  V c = cos(z.im), s = sin(z.im);
  V below = cmp(a, D::LT, 20.0);
  V re = select(below, coshBelow20(a) * c, halfExpTimes(a, c));
  V im = select(below, sinhFromExpm1(a) * s, halfExpTimes(a, s)) * sign(z.re);
  im = select(cmp(z.im, D::EQ, 0.0), select(signBit(z.re), -z.im, z.im), im);
  V noAngle = isNaN(c);
  re = select(both(noAngle, cmp(a, D::EQ, kInf)), a, re);
  im = select(both(noAngle, cmp(a, D::EQ, 0.0)), 0.0, im);
  return {re, im};
}

// sinh(x + iy) = sinh x·cos y + i·cosh x·sin y, as cosh above; y itself on the real axis.
// Where y is not finite: re = x for x = ±0, and +inf for infinite x (Annex G leaves that
// sign open; +inf as the kernel's libm).
Z sinhComplex(Z z) {
  V a = abs(z.re);
  V c = cos(z.im), s = sin(z.im);
  V below = cmp(a, D::LT, 20.0);
  V re = select(below, sinhFromExpm1(a) * c, halfExpTimes(a, c)) * sign(z.re);
  V im = select(below, coshBelow20(a) * s, halfExpTimes(a, s));
  im = select(cmp(z.im, D::EQ, 0.0), z.im, im);
  V noAngle = isNaN(c);
  re = select(both(noAngle, cmp(a, D::EQ, kInf)), a, re);
  re = select(both(noAngle, cmp(a, D::EQ, 0.0)), z.re, re);
  return {re, im};
}

// A complex formula, given the operand's parts.
using ComplexFormula = Z (*)(Z z);

// Complex operands through `complexFormula` (split into parts and joined again), the
// others through the real formula.
std::vector<Value*> mathFormula(Builder& b, const Op& op, Formula realF,
                                ComplexFormula complexFormula) {
  Value* x = op.operand(0);
  if (!isComplex(x->type().dtype())) return realFormula(b, op, realF);
  V z{&b, x};
  Z r = complexFormula({apply(ops::Real, z), apply(ops::Imag, z)});
  return {b.binary(ops::Complex, r.re.v, r.im.v)};
}

}  // namespace

std::vector<Value*> decomposeAcos(Builder& b, const Op& op) {
  return mathFormula(b, op, acosFormula, acosComplex);
}
std::vector<Value*> decomposeAcosh(Builder& b, const Op& op) {
  return mathFormula(b, op, acoshFormula, acoshComplex);
}
std::vector<Value*> decomposeAsin(Builder& b, const Op& op) {
  return mathFormula(b, op, asinFormula, asinComplex);
}
std::vector<Value*> decomposeAsinh(Builder& b, const Op& op) {
  return mathFormula(b, op, asinhFormula, asinhComplex);
}
std::vector<Value*> decomposeAtan(Builder& b, const Op& op) {
  return mathFormula(b, op, atanFormula, atanComplex);
}
std::vector<Value*> decomposeAtanh(Builder& b, const Op& op) {
  return mathFormula(b, op, atanhFormula, atanhComplex);
}
std::vector<Value*> decomposeCosh(Builder& b, const Op& op) {
  return mathFormula(b, op, coshFormula, coshComplex);
}
std::vector<Value*> decomposeSinh(Builder& b, const Op& op) {
  return mathFormula(b, op, sinhFormula, sinhComplex);
}
std::vector<Value*> decomposeErf(Builder& b, const Op& op) {
  return realFormula(b, op, erfFormula);
}
std::vector<Value*> decomposeErfc(Builder& b, const Op& op) {
  return realFormula(b, op, erfcFormula);
}
std::vector<Value*> decomposeErfInv(Builder& b, const Op& op) {
  return realFormula(b, op, erfInvFormula);
}
std::vector<Value*> decomposeLgamma(Builder& b, const Op& op) {
  return realFormula(b, op, lgammaFormula);
}
std::vector<Value*> decomposeDigamma(Builder& b, const Op& op) {
  return realFormula(b, op, digammaFormula);
}
std::vector<Value*> decomposeBesselI1e(Builder& b, const Op& op) {
  return realFormula(b, op, besselI1eFormula);
}

// tan is a StableHLO op of its own, complex included; narrow floats go through f32 as
// the other functions do.
std::vector<Value*> decomposeTan(Builder& b, const Op& op) {
  Value* x = op.operand(0);
  if (isComplex(x->type().dtype())) return {b.unary(ops::Tan, x)};
  return realFormula(b, op, [](V v) { return tan(v); });
}

}  // namespace kiln
