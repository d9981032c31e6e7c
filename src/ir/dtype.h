// Element types (dtypes) of tensors and the facts about each, kept in one table.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln {

// The order is the table order in dtype.cc; add new types at the end of their group.
enum class DType : uint8_t {
  I1,  // boolean
  I2, I4, I8, I16, I32, I64,  // signed integers (MLIR's signless iN; StableHLO's siN)
  U2, U4, U8, U16, U32, U64,  // unsigned integers
  F4E2M1FN, F6E2M3FN, F6E3M2FN, F8E3M4, F8E4M3, F8E4M3FN, F8E4M3FNUZ, F8E4M3B11FNUZ, F8E5M2,
  F8E5M2FNUZ, F8E8M0FNU,  // small floats (OCP MX, FP8 papers)
  BF16, F16, TF32, F32, F64,
  C64, C128,  // complex<f32>, complex<f64>
};
inline constexpr int kNumDTypes = static_cast<int>(DType::C128) + 1;

enum class DTypeKind : uint8_t { Bool, Signed, Unsigned, Float, Complex };

// How the non-finite values of a float format are encoded (the APFloat families).
enum class NonFinite : uint8_t {
  IEEE,        // all-ones exponent: inf (mantissa 0) or NaN
  NanOnly,     // "FN": no inf; all-ones exponent and mantissa is NaN
  NegZeroNan,  // "FNUZ": no inf, no -0; the bit pattern of -0 is the only NaN
  None,        // "FN" MX formats without NaN: every pattern is finite
  AllOnesNan,  // E8M0: unsigned exponent only; 0xFF is NaN
};

// A binary floating-point format: sign bit (unless unsigned), exponent, mantissa.
struct FloatFormat {
  int exponentBits = 0;
  int mantissaBits = 0;
  int bias = 0;
  NonFinite nonFinite = NonFinite::IEEE;
  bool hasSign = true;
  int totalBits() const { return (hasSign ? 1 : 0) + exponentBits + mantissaBits; }
};

struct DTypeInfo {
  DType dtype;
  std::string_view name;  // MLIR spelling: i32, ui8, f16, complex<f32>, ...
  DTypeKind kind;
  int bits;          // value bits (complex: both parts)
  int storageBytes;  // bytes per element in a kiln Literal
  FloatFormat format;  // floats: the format; complex: the format of each part
};

const DTypeInfo& info(DType t);
std::string_view name(DType t);
// Parses the MLIR spelling; also accepts `siN` for signed integers. Empty when unknown.
std::optional<DType> parseDType(std::string_view text);

inline DTypeKind kindOf(DType t) { return info(t).kind; }
inline bool isBool(DType t) { return kindOf(t) == DTypeKind::Bool; }
inline bool isSignedInt(DType t) { return kindOf(t) == DTypeKind::Signed; }
inline bool isUnsignedInt(DType t) { return kindOf(t) == DTypeKind::Unsigned; }
// Integers in the spec's sense: signed or unsigned, not boolean.
inline bool isInteger(DType t) { return isSignedInt(t) || isUnsignedInt(t); }
inline bool isFloat(DType t) { return kindOf(t) == DTypeKind::Float; }
inline bool isComplex(DType t) { return kindOf(t) == DTypeKind::Complex; }
inline int bitWidth(DType t) { return info(t).bits; }
inline int storageBytes(DType t) { return info(t).storageBytes; }
// The part type of a complex type (C64 -> F32); other types map to themselves.
DType complexPart(DType t);
// The complex type whose parts are `t` (F32 -> C64); empty when there is none.
std::optional<DType> complexOf(DType t);

}  // namespace kiln
