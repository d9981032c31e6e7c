// Promotes a module's floating-point computation to double precision: every value of a
// float type narrower than f64 becomes f64 (complex64 becomes complex128), constants
// converted. The derivative checks run f32 programs this way, since f32 finite
// differences are noise at model scale. jaxlib's LAPACK and BLAS calls become their
// double-precision routines (lapack_spotrf_ffi: lapack_dpotrf_ffi); other ops whose
// meaning depends on the bit width (bitcast_convert of a float, other custom calls)
// refuse: "unsupported: promoting ...".
#pragma once

#include "ir/module.h"

namespace kiln::transforms {

void promoteFloatsToF64(Module& module);

}  // namespace kiln::transforms
