// The dtype table: one row per element type.
#include "ir/dtype.h"

#include <array>

namespace kiln {
namespace {

using K = DTypeKind;
using N = NonFinite;

constexpr FloatFormat kNoFormat{};
constexpr FloatFormat fmt(int e, int m, int bias, NonFinite nf = N::IEEE, bool sign = true) {
  return FloatFormat{e, m, bias, nf, sign};
}

constexpr std::array<DTypeInfo, kNumDTypes> kTable = {{
    {DType::I1, "i1", K::Bool, 1, 1, kNoFormat},
    {DType::I2, "i2", K::Signed, 2, 1, kNoFormat},
    {DType::I4, "i4", K::Signed, 4, 1, kNoFormat},
    {DType::I8, "i8", K::Signed, 8, 1, kNoFormat},
    {DType::I16, "i16", K::Signed, 16, 2, kNoFormat},
    {DType::I32, "i32", K::Signed, 32, 4, kNoFormat},
    {DType::I64, "i64", K::Signed, 64, 8, kNoFormat},
    {DType::U2, "ui2", K::Unsigned, 2, 1, kNoFormat},
    {DType::U4, "ui4", K::Unsigned, 4, 1, kNoFormat},
    {DType::U8, "ui8", K::Unsigned, 8, 1, kNoFormat},
    {DType::U16, "ui16", K::Unsigned, 16, 2, kNoFormat},
    {DType::U32, "ui32", K::Unsigned, 32, 4, kNoFormat},
    {DType::U64, "ui64", K::Unsigned, 64, 8, kNoFormat},
    {DType::F4E2M1FN, "f4E2M1FN", K::Float, 4, 1, fmt(2, 1, 1, N::None)},
    {DType::F6E2M3FN, "f6E2M3FN", K::Float, 6, 1, fmt(2, 3, 1, N::None)},
    {DType::F6E3M2FN, "f6E3M2FN", K::Float, 6, 1, fmt(3, 2, 3, N::None)},
    {DType::F8E3M4, "f8E3M4", K::Float, 8, 1, fmt(3, 4, 3)},
    {DType::F8E4M3, "f8E4M3", K::Float, 8, 1, fmt(4, 3, 7)},
    {DType::F8E4M3FN, "f8E4M3FN", K::Float, 8, 1, fmt(4, 3, 7, N::NanOnly)},
    {DType::F8E4M3FNUZ, "f8E4M3FNUZ", K::Float, 8, 1, fmt(4, 3, 8, N::NegZeroNan)},
    {DType::F8E4M3B11FNUZ, "f8E4M3B11FNUZ", K::Float, 8, 1, fmt(4, 3, 11, N::NegZeroNan)},
    {DType::F8E5M2, "f8E5M2", K::Float, 8, 1, fmt(5, 2, 15)},
    {DType::F8E5M2FNUZ, "f8E5M2FNUZ", K::Float, 8, 1, fmt(5, 2, 16, N::NegZeroNan)},
    {DType::F8E8M0FNU, "f8E8M0FNU", K::Float, 8, 1, fmt(8, 0, 127, N::AllOnesNan, false)},
    {DType::BF16, "bf16", K::Float, 16, 2, fmt(8, 7, 127)},
    {DType::F16, "f16", K::Float, 16, 2, fmt(5, 10, 15)},
    {DType::TF32, "tf32", K::Float, 19, 4, fmt(8, 10, 127)},
    {DType::F32, "f32", K::Float, 32, 4, fmt(8, 23, 127)},
    {DType::F64, "f64", K::Float, 64, 8, fmt(11, 52, 1023)},
    {DType::C64, "complex<f32>", K::Complex, 64, 8, fmt(8, 23, 127)},
    {DType::C128, "complex<f64>", K::Complex, 128, 16, fmt(11, 52, 1023)},
}};

constexpr bool tableIsInOrder() {
  for (int i = 0; i < kNumDTypes; ++i)
    if (static_cast<int>(kTable[i].dtype) != i) return false;
  return true;
}
static_assert(tableIsInOrder(), "kTable rows must follow the DType enum order");

}  // namespace

const DTypeInfo& info(DType t) { return kTable[static_cast<int>(t)]; }
std::string_view name(DType t) { return info(t).name; }

std::optional<DType> parseDType(std::string_view text) {
  // StableHLO writes signed integers as siN in prose; MLIR spells them iN.
  if (text.size() > 2 && text.substr(0, 2) == "si") {
    auto t = parseDType(text.substr(1));
    if (t && isSignedInt(*t)) return t;
    return std::nullopt;
  }
  for (const DTypeInfo& row : kTable)
    if (row.name == text) return row.dtype;
  return std::nullopt;
}

DType complexPart(DType t) {
  if (t == DType::C64) return DType::F32;
  if (t == DType::C128) return DType::F64;
  return t;
}

std::optional<DType> complexOf(DType t) {
  if (t == DType::F32) return DType::C64;
  if (t == DType::F64) return DType::C128;
  return std::nullopt;
}

}  // namespace kiln
