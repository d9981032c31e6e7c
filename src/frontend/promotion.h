// JAX's type promotion (jax.numpy.promote_types and weak types, docs/guides/cpp-api.md):
// the dtype two operands meet at. Arrays keep their widths as with jax_enable_x64
// (int64 + float32 is float32, uint64 + int64 is float64); C scalars are weak: they
// take the other operand's dtype within their kind (an int scalar with an int8 array is
// int8, a float scalar with an int array is float32, JAX's default float).
#pragma once

#include "ir/dtype.h"

namespace kiln::detail {

struct Operand {
  DType dtype;
  bool weak = false;
};

// The dtype `a` and `b` promote to, and whether the result is still weak (both were).
Operand promote(Operand a, Operand b);

}  // namespace kiln::detail
