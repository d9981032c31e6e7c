// Filling elided constants with seeded random data (see the header for the ranges).
#include "passes/fill_elided_constants.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "ir/elided_constants.h"

namespace kiln::passes {

namespace {

Literal randomConstant(const Type& type, std::mt19937_64& rng) {
  Literal lit(type);
  const int64_t n = type.numElements();
  double low = 0.5, high = 1.5;
  if (type.rank() >= 2 && n > 0) {
    const double fanIn =
        static_cast<double>(n) / static_cast<double>(std::max<int64_t>(type.shape().back(), 1));
    high = std::sqrt(3.0 / std::max(fanIn, 1.0));  // uniform on [-h, h) has variance h^2 / 3
    low = -high;
  }
  std::uniform_real_distribution<double> real(low, high);
  std::uniform_int_distribution<int64_t> small(1, 7);
  for (int64_t i = 0; i < n; ++i) {
    switch (kindOf(type.dtype())) {
      case DTypeKind::Bool:
        lit.setInt(i, static_cast<int64_t>(rng() & 1));
        break;
      case DTypeKind::Signed:
      case DTypeKind::Unsigned:
        lit.setInt(i, small(rng));
        break;
      case DTypeKind::Float:
        lit.setFloat(i, real(rng));
        break;
      case DTypeKind::Complex: {
        double re = real(rng);
        lit.setComplex(i, {re, real(rng)});
        break;
      }
    }
  }
  return lit;
}

}  // namespace

size_t fillElidedConstants(Module& module, uint64_t seed) {
  std::mt19937_64 rng(seed);
  size_t filled = 0;
  for (const auto& fn : module.functions()) {
    walk(fn->body(), [&](Op& op) {
      if (!isElidedConstant(op)) return;
      op.setAttr("value", Attribute::dense(randomConstant(op.result(0)->type(), rng)));
      op.removeAttr(kElidedAttr);
      ++filled;
    });
  }
  return filled;
}

}  // namespace kiln::passes
