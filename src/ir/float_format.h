// Exact conversions between doubles and the bits of any float format kiln knows
// (f16, bf16, the fp8/fp6/fp4 families), rounding to nearest, ties to even.
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/dtype.h"

namespace kiln {

// The value of `bits` in `format` (NaN for NaN patterns, ±inf for inf patterns).
double decodeFloat(uint64_t bits, const FloatFormat& format);

// The bits of `value` rounded to `format`. Overflow gives inf where the format has one,
// NaN for NaN-only formats and the largest finite value for formats without either.
uint64_t encodeFloat(double value, const FloatFormat& format);

// Bits of a float dtype (F32: the f32 bits, F64: the f64 bits, others via the format).
uint64_t floatToBits(double value, DType t);
double bitsToFloat(uint64_t bits, DType t);

// Parses a decimal literal ("1.5", "-2e-3", "inf", "nan") into the bits of `t`, rounding
// once, directly from the decimal value (no double rounding through f64). Returns false
// when `text` is not a number.
bool parseDecimalFloat(std::string_view text, DType t, uint64_t& bits);

}  // namespace kiln
