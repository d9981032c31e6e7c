// The complex forms of the math ops, as the interpreter computes them, in one place: the
// interpreter's kernels (ops/math.cc, ops/arithmetic.cc) apply them element by element,
// and the cpu backend's kernels call them for complex math (so both give the same bits).
#pragma once

#include <cmath>
#include <complex>

#include "kernels/complex_math.h"
#include "kernels/scalar_math.h"
#include "ir/op_registry.h"

namespace kiln::kernels {

// |z| (stablehlo.abs of a complex number: a real one).
template <class C>
typename C::value_type complexAbs(C z) {
  return std::abs(z);
}

// Whether `code` has a complex form here.
inline bool hasComplexUnary(OpCode code) {
  switch (code) {
    case OpCode::Exponential:
    case OpCode::ExponentialMinusOne:
    case OpCode::Log:
    case OpCode::LogPlusOne:
    case OpCode::Logistic:
    case OpCode::Sqrt:
    case OpCode::Rsqrt:
    case OpCode::Sine:
    case OpCode::Cosine:
    case OpCode::Tan:
    case OpCode::Tanh:
    case OpCode::Cbrt:
    case OpCode::Sign: return true;
    default: return false;
  }
}

// The op `code` (one that hasComplexUnary) at z; complex<float> is evaluated as each
// function defines (the accurate ones in double, rounded once).
template <class C>
C complexUnary(OpCode code, C z) {
  switch (code) {
    case OpCode::Exponential: return viaDouble(z, accurateExp);
    case OpCode::ExponentialMinusOne: return complexExpm1(z);
    case OpCode::Log: return viaDouble(z, accurateLog);
    case OpCode::LogPlusOne: return viaDouble(z, accurateLog1p);
    case OpCode::Logistic: return logistic(z);
    case OpCode::Sqrt: return viaDouble(z, accurateSqrt);
    case OpCode::Rsqrt: return C(1) / std::sqrt(z);
    case OpCode::Sine: return std::sin(z);
    case OpCode::Cosine: return std::cos(z);
    case OpCode::Tan: return std::tan(z);
    case OpCode::Tanh: return std::tanh(z);
    case OpCode::Cbrt: return std::pow(z, C(1.0 / 3.0));  // the principal cube root
    case OpCode::Sign: {
      using P = typename C::value_type;
      if (std::isnan(z.real()) || std::isnan(z.imag())) return C(NAN, NAN);
      if (z == C(0, 0)) return C(0, 0);
      return C(z / P(complexAbs(z)));
    }
    default: return z;
  }
}

// Whether the binary op `code` has a complex form here, and that form at (a, b).
inline bool hasComplexBinary(OpCode code) { return code == OpCode::Power || code == OpCode::Atan2; }

template <class C>
C complexBinary(OpCode code, C a, C b) {
  if (code == OpCode::Atan2) return complexAtan2(a, b);
  return C(std::pow(a, b));
}

}  // namespace kiln::kernels
