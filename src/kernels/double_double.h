// Error-free transformations and a small double-double type: the accurate math functions
// use them where a difference of nearly equal quantities would cancel most of a double's
// digits (|z|² - 1, 1 - x² - y², ...).
#pragma once

#include <cmath>

namespace kiln::kernels {

// A value hi + lo with |lo| <= ulp(hi) / 2.
struct DoubleDouble {
  double hi = 0;
  double lo = 0;
};

// a + b exactly, as a rounded sum and its error (Knuth's 2Sum; any magnitudes).
inline DoubleDouble twoSum(double a, double b) {
  double s = a + b;
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);
  return {s, err};
}

// a * b exactly (barring underflow), through a fused multiply-add.
inline DoubleDouble twoProd(double a, double b) {
  double p = a * b;
  return {p, std::fma(a, b, -p)};
}

inline DoubleDouble ddAdd(DoubleDouble a, DoubleDouble b) {
  DoubleDouble s = twoSum(a.hi, b.hi);
  DoubleDouble t = twoSum(a.lo, b.lo);
  s.lo += t.hi;
  s = twoSum(s.hi, s.lo);
  s.lo += t.lo;
  return twoSum(s.hi, s.lo);
}

inline DoubleDouble ddAdd(DoubleDouble a, double b) { return ddAdd(a, DoubleDouble{b, 0}); }

inline DoubleDouble ddMul(DoubleDouble a, DoubleDouble b) {
  DoubleDouble p = twoProd(a.hi, b.hi);
  p.lo += a.hi * b.lo + a.lo * b.hi;
  return twoSum(p.hi, p.lo);
}

inline DoubleDouble ddDiv(DoubleDouble a, DoubleDouble b) {
  double q1 = a.hi / b.hi;
  // r = a - q1 * b, then one correction step.
  DoubleDouble r = ddAdd(a, ddMul(b, DoubleDouble{-q1, 0}));
  double q2 = (r.hi + r.lo) / b.hi;
  return twoSum(q1, q2);
}

// x² exactly (barring underflow).
inline DoubleDouble twoSquare(double x) { return twoProd(x, x); }

}  // namespace kiln::kernels
