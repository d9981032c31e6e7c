// Special functions the C++ library lacks (or provides only with global state), in
// double: inverse error function, log-gamma, digamma and the scaled Bessel function I1e.
// Callers evaluate narrower floats in double and round once.
#pragma once

namespace kiln::interp {

// erf⁻¹(y) for y in [-1, 1] (±inf at ±1, NaN outside).
double erfInv(double y);

// log|Γ(x)|; +inf at the poles and at ±inf. Thread-safe (std::lgamma may write signgam).
double logGamma(double x);

// ψ(x) = Γ'(x)/Γ(x). As CHLO defines it at the poles: -inf at ±0, NaN at negative
// integers and -inf.
double digamma(double x);

// exp(-|x|)·I1(x), the exponentially scaled modified Bessel function of order one.
double besselI1e(double x);

}  // namespace kiln::interp
