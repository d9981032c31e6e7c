// PJRT's element types against kiln's DType: one table, read wherever a PJRT buffer or
// program type crosses the C API. Host memory holds one element per storage unit of
// kiln's (a byte for the sub-byte types, as NumPy's ml_dtypes hold them).
#pragma once

#include <optional>
#include <utility>

#include "ir/dtype.h"
#include "kiln/pjrt/c_api.h"

namespace kiln::runtime::pjrt {

inline constexpr std::pair<PJRT_Buffer_Type, DType> kBufferTypes[] = {
    {PJRT_Buffer_Type_PRED, DType::I1},
    {PJRT_Buffer_Type_S2, DType::I2},
    {PJRT_Buffer_Type_S4, DType::I4},
    {PJRT_Buffer_Type_S8, DType::I8},
    {PJRT_Buffer_Type_S16, DType::I16},
    {PJRT_Buffer_Type_S32, DType::I32},
    {PJRT_Buffer_Type_S64, DType::I64},
    {PJRT_Buffer_Type_U2, DType::U2},
    {PJRT_Buffer_Type_U4, DType::U4},
    {PJRT_Buffer_Type_U8, DType::U8},
    {PJRT_Buffer_Type_U16, DType::U16},
    {PJRT_Buffer_Type_U32, DType::U32},
    {PJRT_Buffer_Type_U64, DType::U64},
    {PJRT_Buffer_Type_F4E2M1FN, DType::F4E2M1FN},
    {PJRT_Buffer_Type_F8E3M4, DType::F8E3M4},
    {PJRT_Buffer_Type_F8E4M3, DType::F8E4M3},
    {PJRT_Buffer_Type_F8E4M3FN, DType::F8E4M3FN},
    {PJRT_Buffer_Type_F8E4M3FNUZ, DType::F8E4M3FNUZ},
    {PJRT_Buffer_Type_F8E4M3B11FNUZ, DType::F8E4M3B11FNUZ},
    {PJRT_Buffer_Type_F8E5M2, DType::F8E5M2},
    {PJRT_Buffer_Type_F8E5M2FNUZ, DType::F8E5M2FNUZ},
    {PJRT_Buffer_Type_F8E8M0FNU, DType::F8E8M0FNU},
    {PJRT_Buffer_Type_BF16, DType::BF16},
    {PJRT_Buffer_Type_F16, DType::F16},
    {PJRT_Buffer_Type_F32, DType::F32},
    {PJRT_Buffer_Type_F64, DType::F64},
    {PJRT_Buffer_Type_C64, DType::C64},
    {PJRT_Buffer_Type_C128, DType::C128},
};

// Empty for INVALID, TOKEN, the types kiln has no DType for (S1, U1) and values outside
// the enum (any int a C caller stored).
inline std::optional<DType> dtypeOf(int type) {
  for (const auto& [t, d] : kBufferTypes)
    if (t == type) return d;
  return std::nullopt;
}

// INVALID for the dtypes PJRT has no type for (TF32, the 6-bit floats).
inline PJRT_Buffer_Type bufferTypeOf(DType dtype) {
  for (const auto& [t, d] : kBufferTypes)
    if (d == dtype) return t;
  return PJRT_Buffer_Type_INVALID;
}

}  // namespace kiln::runtime::pjrt
