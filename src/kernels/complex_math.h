// Complex elementary functions accurate to a few ULP on the whole plane: tiny and huge
// magnitudes, points near the branch points and cuts, and the C99 Annex G special values.
// They work in double; callers evaluate complex<float> in double and round once.
#pragma once

#include <complex>

namespace kiln::kernels {

using ComplexD = std::complex<double>;

// log|x + iy| without overflow, underflow or cancellation near |z| = 1.
double logHypot(double x, double y);

ComplexD accurateLog(ComplexD z);
ComplexD accurateLog1p(ComplexD z);
ComplexD accurateExp(ComplexD z);
ComplexD accurateSqrt(ComplexD z);
ComplexD accurateSquare(ComplexD z);
ComplexD accurateAsin(ComplexD z);
ComplexD accurateAcos(ComplexD z);
ComplexD accurateAsinh(ComplexD z);
ComplexD accurateAcosh(ComplexD z);
ComplexD accurateAtan(ComplexD z);
ComplexD accurateAtanh(ComplexD z);

// Applies a ComplexD function to complex<float> or complex<double>, rounding once.
template <class C, class F>
C viaDouble(C z, F f) {
  using P = typename C::value_type;
  ComplexD r = f(ComplexD(z.real(), z.imag()));
  return C(static_cast<P>(r.real()), static_cast<P>(r.imag()));
}

}  // namespace kiln::kernels
