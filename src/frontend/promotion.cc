#include "frontend/promotion.h"

#include <algorithm>

namespace kiln::detail {

namespace {

// The order of kinds in JAX's lattice: bool < unsigned, signed < float < complex.
int rankOf(DType t) {
  switch (kindOf(t)) {
    case DTypeKind::Bool: return 0;
    case DTypeKind::Unsigned:
    case DTypeKind::Signed: return 1;
    case DTypeKind::Float: return 2;
    case DTypeKind::Complex: return 3;
  }
  return 0;
}

DType signedOfWidth(int bits) { return bits <= 8 ? DType::I8 : bits <= 16 ? DType::I16 : bits <= 32 ? DType::I32 : DType::I64; }

DType promoteIntegers(DType a, DType b) {
  if (kindOf(a) == kindOf(b)) return bitWidth(a) >= bitWidth(b) ? a : b;
  DType u = isUnsignedInt(a) ? a : b, s = isUnsignedInt(a) ? b : a;
  if (bitWidth(s) > bitWidth(u)) return s;
  if (bitWidth(u) < 64) return signedOfWidth(2 * bitWidth(u));
  return DType::F64;  // uint64 with a signed type: no integer holds both
}

DType promoteFloats(DType a, DType b) {
  if (a == b) return a;
  if ((a == DType::BF16 && b == DType::F16) || (a == DType::F16 && b == DType::BF16)) return DType::F32;
  return bitWidth(a) >= bitWidth(b) ? a : b;
}

DType promoteStrong(DType a, DType b) {
  if (a == b) return a;
  int ra = rankOf(a), rb = rankOf(b);
  if (ra != rb) {
    DType hi = ra > rb ? a : b, lo = ra > rb ? b : a;
    // complex with a float wider than its parts widens the parts
    if (isComplex(hi) && isFloat(lo) && bitWidth(lo) > bitWidth(complexPart(hi))) return *complexOf(lo == DType::F64 ? DType::F64 : DType::F32);
    return hi;
  }
  switch (ra) {
    case 1: return promoteIntegers(a, b);
    case 2: return promoteFloats(a, b);
    case 3: return bitWidth(a) >= bitWidth(b) ? a : b;
  }
  return a;
}

// A weak scalar's dtype alone: JAX's defaults.
DType defaultOf(DType weakKind) {
  switch (kindOf(weakKind)) {
    case DTypeKind::Bool: return DType::I1;
    case DTypeKind::Signed:
    case DTypeKind::Unsigned: return DType::I32;
    case DTypeKind::Float: return DType::F32;
    case DTypeKind::Complex: return DType::C64;
  }
  return weakKind;
}

}  // namespace

Operand promote(Operand a, Operand b) {
  if (a.weak && b.weak) return {promoteStrong(defaultOf(a.dtype), defaultOf(b.dtype)), true};
  if (a.weak || b.weak) {
    Operand weak = a.weak ? a : b, strong = a.weak ? b : a;
    // The weak scalar takes the array's dtype unless its kind is higher (a float
    // scalar with an int array): then the default of its kind.
    if (rankOf(weak.dtype) <= rankOf(strong.dtype)) return {strong.dtype, false};
    if (isComplex(weak.dtype) && isFloat(strong.dtype)) return {*complexOf(strong.dtype == DType::F64 ? DType::F64 : DType::F32), false};
    return {defaultOf(weak.dtype), false};
  }
  return {promoteStrong(a.dtype, b.dtype), false};
}

}  // namespace kiln::detail
