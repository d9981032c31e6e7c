// Float format conversions. Encoding works on the exact integer mantissa of the double,
// so rounding happens exactly once.
#include "ir/float_format.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace kiln {
namespace {

uint64_t mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

uint64_t signBit(const FloatFormat& f) {
  return f.hasSign ? 1ull << (f.exponentBits + f.mantissaBits) : 0;
}

uint64_t nanBits(const FloatFormat& f) {
  uint64_t expAll = mask(f.exponentBits) << f.mantissaBits;
  switch (f.nonFinite) {
    case NonFinite::IEEE: return expAll | (f.mantissaBits > 0 ? 1ull << (f.mantissaBits - 1) : 0);
    case NonFinite::NanOnly: return expAll | mask(f.mantissaBits);
    case NonFinite::NegZeroNan: return signBit(f);
    case NonFinite::AllOnesNan: return mask(f.totalBits());
    case NonFinite::None: return 0;  // no NaN exists; zero is the least surprising value
  }
  return 0;
}

// The largest finite bit pattern (without sign).
uint64_t maxFiniteBits(const FloatFormat& f) {
  uint64_t expAll = mask(f.exponentBits);
  switch (f.nonFinite) {
    case NonFinite::IEEE: return ((expAll - 1) << f.mantissaBits) | mask(f.mantissaBits);
    case NonFinite::NanOnly: return (expAll << f.mantissaBits) | (mask(f.mantissaBits) - 1);
    case NonFinite::NegZeroNan:
    case NonFinite::None: return (expAll << f.mantissaBits) | mask(f.mantissaBits);
    case NonFinite::AllOnesNan: return mask(f.totalBits()) - 1;
  }
  return 0;
}

// Shifts `m` right by `shift` bits, rounding to nearest, ties to even.
uint64_t shiftRightRoundEven(uint64_t m, int shift) {
  if (shift <= 0) return m << -shift;
  if (shift > 64) return 0;
  uint64_t kept = shift == 64 ? 0 : m >> shift;
  uint64_t rest = m & mask(shift);
  uint64_t half = 1ull << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  return kept;
}

}  // namespace

double decodeFloat(uint64_t bits, const FloatFormat& f) {
  bits &= mask(f.totalBits());
  bool negative = (bits & signBit(f)) != 0;
  uint64_t exp = (bits >> f.mantissaBits) & mask(f.exponentBits);
  uint64_t mant = bits & mask(f.mantissaBits);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (f.nonFinite) {
    case NonFinite::IEEE:
      if (exp == mask(f.exponentBits))
        return mant ? nan : (negative ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
      break;
    case NonFinite::NanOnly:
      if (exp == mask(f.exponentBits) && mant == mask(f.mantissaBits)) return nan;
      break;
    case NonFinite::NegZeroNan:
      if (bits == signBit(f)) return nan;
      break;
    case NonFinite::AllOnesNan:
      if (bits == mask(f.totalBits())) return nan;
      break;
    case NonFinite::None: break;
  }
  double magnitude;
  if (f.mantissaBits == 0) {
    magnitude = std::ldexp(1.0, static_cast<int>(exp) - f.bias);  // E8M0: powers of two only
  } else if (exp == 0) {
    magnitude = std::ldexp(static_cast<double>(mant), 1 - f.bias - f.mantissaBits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mant | (1ull << f.mantissaBits)),
                           static_cast<int>(exp) - f.bias - f.mantissaBits);
  }
  return negative ? -magnitude : magnitude;
}

uint64_t encodeFloat(double value, const FloatFormat& f) {
  if (std::isnan(value)) return nanBits(f);
  bool negative = std::signbit(value);
  if (negative && !f.hasSign) return nanBits(f);  // unsigned formats cannot hold it
  uint64_t sign = negative ? signBit(f) : 0;
  if (f.nonFinite == NonFinite::NegZeroNan) sign = (value == 0.0) ? 0 : sign;
  double magnitude = std::fabs(value);
  uint64_t maxFinite = maxFiniteBits(f);
  auto overflow = [&]() -> uint64_t {
    switch (f.nonFinite) {
      case NonFinite::IEEE: return sign | (mask(f.exponentBits) << f.mantissaBits);
      case NonFinite::None: return sign | maxFinite;
      default: return nanBits(f);
    }
  };
  if (std::isinf(magnitude)) return overflow();
  if (magnitude == 0.0) return f.mantissaBits == 0 ? 0 : sign;  // E8M0 has no zero

  // magnitude = m * 2^e2 exactly, with m a 53-bit integer.
  int e2;
  double frac = std::frexp(magnitude, &e2);  // frac in [0.5, 1)
  uint64_t m = static_cast<uint64_t>(std::ldexp(frac, 53));
  e2 -= 53;
  int unbiased = e2 + 52;  // magnitude = 1.xxx * 2^unbiased
  // Exponent of the last mantissa bit kept: normal numbers keep mantissaBits below the
  // leading one; subnormals share the quantum of the smallest normal exponent.
  int minNormal = f.mantissaBits == 0 ? -f.bias : 1 - f.bias;
  int quantumExp = std::max(unbiased, minNormal) - f.mantissaBits;
  uint64_t r = shiftRightRoundEven(m, quantumExp - e2);
  // Rounding may carry into a new leading bit: that is the next binade, same quantum rule.
  uint64_t bits;
  if (f.mantissaBits == 0) {
    if (r == 0) return 0;  // below 2^-bias rounds up to the smallest value
    int exp = quantumExp + static_cast<int>(std::bit_width(r)) - 1 + f.bias;
    if (exp > static_cast<int>(maxFinite)) return overflow();
    return static_cast<uint64_t>(std::max(exp, 0));
  }
  if (r < (1ull << f.mantissaBits)) {
    bits = r;  // subnormal (or zero after rounding)
  } else {
    int exp = quantumExp + f.mantissaBits + f.bias;
    if (r >= (2ull << f.mantissaBits)) {  // carried past the mantissa
      r >>= 1;
      ++exp;
    }
    if (exp >= (1 << f.exponentBits)) return overflow();
    bits = (static_cast<uint64_t>(exp) << f.mantissaBits) | (r & mask(f.mantissaBits));
  }
  if (bits > maxFinite) return overflow();
  return sign | bits;
}

uint64_t floatToBits(double value, DType t) {
  if (t == DType::F64) return std::bit_cast<uint64_t>(value);
  if (t == DType::F32) return std::bit_cast<uint32_t>(static_cast<float>(value));
  return encodeFloat(value, info(t).format);
}

double bitsToFloat(uint64_t bits, DType t) {
  if (t == DType::F64) return std::bit_cast<double>(bits);
  if (t == DType::F32) return std::bit_cast<float>(static_cast<uint32_t>(bits));
  return decodeFloat(bits, info(t).format);
}

namespace {

// strtod in a given rounding mode (glibc honours the current mode).
double strtodRounded(const std::string& s, int mode, char** end) {
  int old = std::fegetround();
  std::fesetround(mode);
  double d = std::strtod(s.c_str(), end);
  std::fesetround(old);
  return d;
}

}  // namespace

bool parseDecimalFloat(std::string_view text, DType t, uint64_t& bits) {
  std::string s(text);
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  if (t == DType::F32) {
    float v = std::strtof(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return false;
    bits = std::bit_cast<uint32_t>(v);
    return true;
  }
  double nearest = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  if (t == DType::F64 || !std::isfinite(nearest)) {
    bits = floatToBits(nearest, t);
    return true;
  }
  // Round to odd in f64, then to nearest in the narrower format: with at least two more
  // bits in f64 than in the target, this equals rounding the decimal value once.
  double down = strtodRounded(s, FE_DOWNWARD, &end);
  double up = strtodRounded(s, FE_UPWARD, &end);
  double odd = nearest;
  if (down != up) odd = (std::bit_cast<uint64_t>(down) & 1) ? down : up;
  bits = floatToBits(odd, t);
  return true;
}

}  // namespace kiln
