// Kernels: unary elementwise ops (negation, rounding, bit counts, and the math
// functions) for every element type they are defined on. Narrow floats are computed in
// f32 and rounded once when stored; the complex forms of the math functions are
// complex_ops.h's (shared with the cpu backend).
#include <bit>

#include "interp/elementwise.h"
#include "interp/kernels.h"
#include "ir/ops/stablehlo.h"
#include "kernels/complex_math.h"
#include "kernels/complex_ops.h"
#include "kernels/scalar_math.h"

namespace kiln::interp {
using namespace kernels;  // NOLINT: the shared element functions (kernels/)
namespace {

template <class T>
constexpr bool kIsBool = std::is_same_v<T, bool>;
template <class T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;


HostValues negate(const Op&, const HostValues& v, EvalContext&) {
  return {mapUnary(in(v), [](auto a) {
    using T = decltype(a);
    if constexpr (kIsBool<T>) return a;
    else if constexpr (kIsInt<T>) return wrapSub(T(0), a);
    else return T(-a);
  })};
}

HostValues abs(const Op&, const HostValues& v, EvalContext&) {
  const Literal& a = in(v);
  if (isComplex(a.dtype())) return {mapComplexToPart(a, [](auto z) { return complexAbs(z); })};
  return {mapUnary(a, [](auto x) {
    using T = decltype(x);
    if constexpr (kIsBool<T>) return x;
    else if constexpr (kIsInt<T>) {
      if constexpr (std::is_signed_v<T>) return x < 0 ? wrapSub(T(0), x) : x;
      else return x;
    } else if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
    else return x;  // complex handled above
  })};
}

HostValues logicalNot(const Op&, const HostValues& v, EvalContext&) {
  return {mapUnary(in(v), [](auto a) {
    using T = decltype(a);
    if constexpr (kIsBool<T>) return T(!a);
    else if constexpr (kIsInt<T>) return static_cast<T>(~a);
    else return a;  // the verifier admits only integers and booleans
  })};
}

// popcnt and count_leading_zeros look at the type's own width (i4 is 4 bits).
template <bool kPopcount>
HostValues bitCount(const Op&, const HostValues& v, EvalContext&) {
  const int width = bitWidth(in(v).dtype());
  return {mapUnary(in(v), [&](auto a) {
    using T = decltype(a);
    if constexpr (kIsInt<T>) {
      uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
      uint64_t bits = static_cast<uint64_t>(static_cast<int64_t>(a)) & mask;
      int n = kPopcount ? std::popcount(bits) : width - static_cast<int>(std::bit_width(bits));
      return static_cast<T>(n);
    } else {
      return a;
    }
  })};
}

HostValues sign(const Op&, const HostValues& v, EvalContext&) {
  return {mapUnary(in(v), [](auto x) {
    using T = decltype(x);
    if constexpr (kIsBool<T>) {
      return x;
    } else if constexpr (kIsInt<T>) {
      return static_cast<T>(x > 0 ? 1 : (x == 0 ? 0 : -1));
    } else if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x) || x == 0) return x;  // NaN and ±0 stay as they are
      return T(x < 0 ? -1 : 1);
    } else {
      return complexUnary(ops::Sign, x);
    }
  })};
}

// A float-only (and optionally complex) function, given as two callables.
template <class Real, class Cplx>
Literal mathMap(const Op& op, const Literal& a, Real real, Cplx cplx) {
  return mapUnary(a, [&](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(real(x));
    } else if constexpr (kIsComplex<T>) {
      if constexpr (std::is_invocable_v<Cplx, T>) return static_cast<T>(cplx(x));
      unsupportedOp(op, "complex operand");
      return x;
    } else {
      unsupportedOp(op, "integer or boolean operand");
      return x;
    }
  });
}

struct NoComplex {};

#define KILN_MATH_KERNEL(name, realExpr, complexExpr)                                     \
  HostValues name(const Op& op, const HostValues& v, EvalContext&) {                     \
    return {mathMap(op, in(v), [](auto x) { return realExpr; },                           \
                    [](auto z) -> decltype(z) { return complexExpr; })};                  \
  }
#define KILN_REAL_KERNEL(name, realExpr)                                                  \
  HostValues name(const Op& op, const HostValues& v, EvalContext&) {                     \
    return {mathMap(op, in(v), [](auto x) { return realExpr; }, NoComplex{})};            \
  }

KILN_MATH_KERNEL(exponential, std::exp(x), complexUnary(ops::Exponential, z))
KILN_MATH_KERNEL(exponentialMinusOne, std::expm1(x), complexUnary(ops::ExponentialMinusOne, z))
KILN_MATH_KERNEL(log, std::log(x), complexUnary(ops::Log, z))
KILN_MATH_KERNEL(logPlusOne, std::log1p(x), complexUnary(ops::LogPlusOne, z))
KILN_MATH_KERNEL(logisticK, logistic(x), complexUnary(ops::Logistic, z))
KILN_MATH_KERNEL(sqrt, std::sqrt(x), complexUnary(ops::Sqrt, z))
KILN_MATH_KERNEL(rsqrt, 1 / std::sqrt(x), complexUnary(ops::Rsqrt, z))
KILN_MATH_KERNEL(sine, std::sin(x), complexUnary(ops::Sine, z))
KILN_MATH_KERNEL(cosine, std::cos(x), complexUnary(ops::Cosine, z))
KILN_MATH_KERNEL(tan, std::tan(x), complexUnary(ops::Tan, z))
KILN_MATH_KERNEL(tanh, std::tanh(x), complexUnary(ops::Tanh, z))
KILN_MATH_KERNEL(cbrt, std::cbrt(x), complexUnary(ops::Cbrt, z))
KILN_REAL_KERNEL(ceil, std::ceil(x))
KILN_REAL_KERNEL(floor, std::floor(x))
KILN_REAL_KERNEL(roundNearestAfz, std::round(x))
KILN_REAL_KERNEL(roundNearestEven, std::nearbyint(x))  // the default rounding mode: ties to even

#undef KILN_MATH_KERNEL
#undef KILN_REAL_KERNEL

}  // namespace

void addMathKernels(KernelTable& t) {
  namespace O = ops;
  t.set(O::Negate, &negate);
  t.set(O::Abs, &abs);
  t.set(O::Not, &logicalNot);
  t.set(O::Popcnt, &bitCount<true>);
  t.set(O::CountLeadingZeros, &bitCount<false>);
  t.set(O::Sign, &sign);
  t.set(O::Exponential, &exponential);
  t.set(O::ExponentialMinusOne, &exponentialMinusOne);
  t.set(O::Log, &log);
  t.set(O::LogPlusOne, &logPlusOne);
  t.set(O::Logistic, &logisticK);
  t.set(O::Sqrt, &sqrt);
  t.set(O::Rsqrt, &rsqrt);
  t.set(O::Sine, &sine);
  t.set(O::Cosine, &cosine);
  t.set(O::Tan, &tan);
  t.set(O::Tanh, &tanh);
  t.set(O::Cbrt, &cbrt);
  t.set(O::Ceil, &ceil);
  t.set(O::Floor, &floor);
  t.set(O::RoundNearestAfz, &roundNearestAfz);
  t.set(O::RoundNearestEven, &roundNearestEven);
}

}  // namespace kiln::interp
