// Seeded random inputs for `kiln run --random-inputs` and `kiln bench`.
#include "commands.h"

namespace kiln::tool {

Literal randomInput(const Type& type, std::mt19937_64& rng, double scale) {
  Literal lit(type);
  std::uniform_real_distribution<double> real(-scale, scale);
  std::uniform_int_distribution<int64_t> small(0, 9);
  for (int64_t i = 0, n = type.numElements(); i < n; ++i) {
    switch (kindOf(type.dtype())) {
      case DTypeKind::Bool: lit.setInt(i, small(rng) % 2); break;
      case DTypeKind::Signed:
      case DTypeKind::Unsigned: lit.setInt(i, small(rng)); break;
      case DTypeKind::Float: lit.setFloat(i, real(rng)); break;
      case DTypeKind::Complex: lit.setComplex(i, {real(rng), real(rng)}); break;
    }
  }
  return lit;
}

}  // namespace kiln::tool
