// The C API's dtype enum against kiln's DType: one table, read by the plugins (what a
// buffer holds) and by the C++ wrapper (what it hands them).
#pragma once

#include <optional>
#include <utility>

#include "ir/dtype.h"
#include "ir/type.h"
#include "kiln/plugin.h"

namespace kiln::runtime {

inline constexpr std::pair<KilnDType, DType> kDTypeCodes[] = {
    {KILN_DTYPE_PRED, DType::I1}, {KILN_DTYPE_S8, DType::I8},   {KILN_DTYPE_S16, DType::I16},
    {KILN_DTYPE_S32, DType::I32}, {KILN_DTYPE_S64, DType::I64}, {KILN_DTYPE_U8, DType::U8},
    {KILN_DTYPE_U16, DType::U16}, {KILN_DTYPE_U32, DType::U32}, {KILN_DTYPE_U64, DType::U64},
    {KILN_DTYPE_F16, DType::F16}, {KILN_DTYPE_BF16, DType::BF16}, {KILN_DTYPE_F32, DType::F32},
    {KILN_DTYPE_F64, DType::F64}, {KILN_DTYPE_C64, DType::C64}, {KILN_DTYPE_C128, DType::C128},
};

// Empty for KILN_DTYPE_INVALID and values outside the enum.
inline std::optional<DType> dtypeOf(KilnDType code) {
  for (const auto& [c, d] : kDTypeCodes)
    if (c == code) return d;
  return std::nullopt;
}

// KILN_DTYPE_INVALID for the dtypes the C API has no code for (the small floats, i2, i4).
inline KilnDType dtypeCode(DType dtype) {
  for (const auto& [c, d] : kDTypeCodes)
    if (d == dtype) return c;
  return KILN_DTYPE_INVALID;
}

// The code of a value's type as the C API passes it: its dtype's, KILN_DTYPE_TOKEN for a
// token, KILN_DTYPE_INVALID for what the API does not pass (tuples, the dtypes above).
inline KilnDType typeCode(const Type& type) {
  if (type.isToken()) return KILN_DTYPE_TOKEN;
  return type.isTensor() ? dtypeCode(type.dtype()) : KILN_DTYPE_INVALID;
}

}  // namespace kiln::runtime
