// Scalar functions the elementwise kernels share where C++ lacks the exact StableHLO
// semantics: IEEE-754 maximum/minimum, totalOrder keys, and the complex functions
// std::complex does not provide (expm1, rsqrt, logistic, tan, atan2; log1p is in
// complex_math.h).
#pragma once

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

namespace kiln::kernels {

// IEEE-754 maximum/minimum: NaN if either is NaN; -0 < +0.
template <class T>
T ieeeMaximum(T a, T b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;  // max(-0, +0) = +0
  return a > b ? a : b;
}
template <class T>
T ieeeMinimum(T a, T b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;  // min(-0, +0) = -0
  return a < b ? a : b;
}

// An integer that orders floats the way IEEE totalOrder does:
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
inline int64_t totalOrderKey(double v) {
  // Negative floats order backwards as integers: flip their magnitude bits.
  int64_t bits = std::bit_cast<int64_t>(v);
  return bits ^ ((bits >> 63) & INT64_MAX);
}

// Complex functions, computed without cancellation where the textbook form loses digits.
template <class T>
std::complex<T> complexExpm1(std::complex<T> z) {
  T x = z.real(), y = z.imag();
  T s = std::sin(y / 2);
  // e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y/2); a real argument stays real even where
  // e^x overflows (inf * 0 would make the imaginary part NaN).
  return {std::expm1(x) * std::cos(y) - 2 * s * s, y == 0 ? y : std::exp(x) * std::sin(y)};
}

template <class T>
std::complex<T> complexAtan2(std::complex<T> y, std::complex<T> x) {
  // atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2))
  const std::complex<T> i(0, 1);
  return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
}

template <class T>
T logistic(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    // 1 / (1 + e^-x), written to avoid overflow for large negative x.
    if (x >= 0) return 1 / (1 + std::exp(-x));
    T e = std::exp(x);
    return e / (1 + e);
  } else {
    return T(1) / (T(1) + std::exp(-x));
  }
}

}  // namespace kiln::kernels
