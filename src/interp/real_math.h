// Real inverse trigonometric and hyperbolic functions as CHLO defines them, in double
// (callers evaluate narrower floats in double and round once).
#pragma once

#include <cmath>

namespace kiln::interp {

inline double realAcos(double x) { return std::acos(x); }
inline double realAsin(double x) { return std::asin(x); }
inline double realAtan(double x) { return std::atan(x); }
inline double realAcosh(double x) { return std::acosh(x); }
inline double realAsinh(double x) { return std::asinh(x); }
inline double realAtanh(double x) { return std::atanh(x); }

}  // namespace kiln::interp
