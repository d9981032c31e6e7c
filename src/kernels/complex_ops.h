// The complex forms of the math ops, as the interpreter computes them, in one place: the
// interpreter's kernels (ops/math.cc, ops/arithmetic.cc) apply them element by element,
// and the cpu backend's kernels call them for complex math (so both give the same bits).
#pragma once

#include <cmath>
#include <complex>

#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"
#include "kernels/complex_math.h"
#include "kernels/scalar_math.h"

namespace kiln::kernels {

// |z| (stablehlo.abs of a complex number: a real one).
template <class C>
typename C::value_type complexAbs(C z) {
  return std::abs(z);
}

// Whether `code` has a complex form here.
inline bool hasComplexUnary(OpCode code) {
  switch (code) {
    case ops::Exponential:
    case ops::ExponentialMinusOne:
    case ops::Log:
    case ops::LogPlusOne:
    case ops::Logistic:
    case ops::Sqrt:
    case ops::Rsqrt:
    case ops::Sine:
    case ops::Cosine:
    case ops::Tan:
    case ops::Tanh:
    case ops::Cbrt:
    case ops::Sign: return true;
    default: return false;
  }
}

// The op `code` (one that hasComplexUnary) at z; complex<float> is evaluated as each
// function defines (the accurate ones in double, rounded once).
template <class C>
C complexUnary(OpCode code, C z) {
  switch (code) {
    case ops::Exponential: return viaDouble(z, accurateExp);
    case ops::ExponentialMinusOne: return complexExpm1(z);
    case ops::Log: return viaDouble(z, accurateLog);
    case ops::LogPlusOne: return viaDouble(z, accurateLog1p);
    case ops::Logistic: return logistic(z);
    case ops::Sqrt: return viaDouble(z, accurateSqrt);
    case ops::Rsqrt: return C(1) / std::sqrt(z);
    case ops::Sine: return std::sin(z);
    case ops::Cosine: return std::cos(z);
    case ops::Tan:
      // tan(±inf + iy) has no limit: NaN in both parts, as XLA and NumPy give (C's ctan
      // keeps the imaginary part's zero).
      if (std::isinf(z.real()) && std::isfinite(z.imag())) return C(NAN, NAN);
      return std::tan(z);
    case ops::Tanh: return std::tanh(z);
    case ops::Cbrt: return std::pow(z, C(1.0 / 3.0));  // the principal cube root
    case ops::Sign: {
      using P = typename C::value_type;
      if (std::isnan(z.real()) || std::isnan(z.imag())) return C(NAN, NAN);
      if (z == C(0, 0)) return C(0, 0);
      return C(z / P(complexAbs(z)));
    }
    default: return z;
  }
}

// Whether the binary op `code` has a complex form here, and that form at (a, b).
inline bool hasComplexBinary(OpCode code) { return code == ops::Power || code == ops::Atan2; }

template <class C>
C complexBinary(OpCode code, C a, C b) {
  if (code == ops::Atan2) return complexAtan2(a, b);
  return C(std::pow(a, b));
}

}  // namespace kiln::kernels
