// Kernels: conversions between element types (convert, bitcast_convert,
// reduce_precision) and the complex-part ops (real, imag, complex, is_finite).
#include <limits>

#include "interp/elementwise.h"
#include "interp/kernels.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

template <class T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// A float truncated toward zero into an integer type; out-of-range values saturate and
// NaN becomes 0 (the spec leaves these open; this is what XLA does).
template <class Out>
Out floatToInt(double x, int width, bool isSigned) {
  if (std::isnan(x)) return 0;
  x = std::trunc(x);
  if (isSigned) {
    double limit = std::ldexp(1.0, width - 1);
    if (x >= limit) return static_cast<Out>(width == 64 ? INT64_MAX : (int64_t{1} << (width - 1)) - 1);
    if (x < -limit) return static_cast<Out>(width == 64 ? INT64_MIN : -(int64_t{1} << (width - 1)));
    return static_cast<Out>(static_cast<int64_t>(x));
  }
  double limit = std::ldexp(1.0, width);
  if (x >= limit) return static_cast<Out>(width == 64 ? UINT64_MAX : (uint64_t{1} << width) - 1);
  if (x <= 0) return 0;
  return static_cast<Out>(static_cast<uint64_t>(x));
}

HostValues convert(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& a = v[0].tensor();
  DType to = op.result()->type().dtype();
  const int width = bitWidth(to);
  const bool toSigned = isSignedInt(to);
  return {mapConvert(a, to, [&](auto x, auto outTag) {
    using In = decltype(x);
    using Out = typename decltype(outTag)::type;
    // Complex sources convert their real part (except to complex).
    if constexpr (kIsComplex<In> && !kIsComplex<Out>) {
      if constexpr (std::is_same_v<Out, bool>) return Out(x.real() != 0);
      else if constexpr (kIsInt<Out>) return floatToInt<Out>(x.real(), width, toSigned);
      else return static_cast<Out>(x.real());
    } else if constexpr (kIsComplex<Out>) {
      using P = typename Out::value_type;
      if constexpr (kIsComplex<In>) return Out(static_cast<P>(x.real()), static_cast<P>(x.imag()));
      else return Out(static_cast<P>(x), 0);
    } else if constexpr (std::is_same_v<Out, bool>) {
      return Out(x != 0);
    } else if constexpr (kIsInt<Out> && std::is_floating_point_v<In>) {
      return floatToInt<Out>(static_cast<double>(x), width, toSigned);
    } else {
      // int -> int wraps on store; int/float -> float rounds to nearest even.
      return static_cast<Out>(x);
    }
  })};
}

// The raw bits of element i (narrow signed integers as their own width).
uint64_t rawBits(const Literal& lit, int64_t i) {
  DType t = lit.dtype();
  uint64_t bits = lit.bitsAt(i);
  int w = bitWidth(t);
  if (w < 64 && !isComplex(t)) bits &= (uint64_t{1} << w) - 1;
  return bits;
}

HostValues bitcastConvert(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& a = v[0].tensor();
  Type resultType = op.result()->type();
  DType from = a.dtype(), to = resultType.dtype();
  // Whole-byte types (complex included) move their storage bytes, little-endian: an
  // element splits into, or is assembled from, consecutive elements of the other type.
  auto wholeBytes = [](DType t) { return bitWidth(t) == 8 * storageBytes(t); };
  if (wholeBytes(from) && wholeBytes(to)) {
    Literal copy = a;  // expands a splat
    const uint8_t* bytes = copy.mutableStorage();
    return {Literal::fromStorage(resultType, std::vector<uint8_t>(bytes, bytes + a.type().byteSize()))};
  }
  if (isComplex(from) || isComplex(to)) unsupportedOp(op, "complex with sub-byte types");
  int wIn = bitWidth(from), wOut = bitWidth(to);
  Literal out(resultType);
  auto store = [&](int64_t i, uint64_t bits) {
    if (isSignedInt(to) && wOut < 64) {
      uint64_t sign = uint64_t{1} << (wOut - 1);
      out.setInt(i, static_cast<int64_t>((bits ^ sign) - sign));
    } else if (isBool(to)) {
      out.setInt(i, bits & 1);
    } else {
      out.setBits(i, bits);
    }
  };
  int64_t n = resultType.numElements();
  if (wIn == wOut) {
    for (int64_t i = 0; i < n; ++i) store(i, rawBits(a, i));
  } else if (wIn > wOut) {  // each input element becomes wIn / wOut outputs, low bits first
    int64_t k = wIn / wOut;
    uint64_t mask = wOut >= 64 ? ~uint64_t{0} : (uint64_t{1} << wOut) - 1;
    for (int64_t i = 0; i < n; ++i) store(i, (rawBits(a, i / k) >> ((i % k) * wOut)) & mask);
  } else {  // wOut / wIn inputs make one output, the first in the low bits
    int64_t k = wOut / wIn;
    for (int64_t i = 0; i < n; ++i) {
      uint64_t bits = 0;
      for (int64_t j = 0; j < k; ++j) bits |= rawBits(a, i * k + j) << (j * wIn);
      store(i, bits);
    }
  }
  return {std::move(out)};
}

// XLA's reduce_precision on the bits of the operand's own format: round the mantissa to
// nearest even, then overflow to inf or underflow to zero outside the reduced exponent
// range; NaN stays NaN (or becomes inf when no mantissa bits are left).
uint64_t reducePrecisionBits(uint64_t x, const FloatFormat& src, int exponentBits, int mantissaBits) {
  int total = src.totalBits();
  uint64_t original = x;
  uint64_t signMask = uint64_t{1} << (total - 1);
  uint64_t expMask = ((uint64_t{1} << src.exponentBits) - 1) << src.mantissaBits;
  uint64_t mantMask = (uint64_t{1} << src.mantissaBits) - 1;
  bool isNan = (x & expMask) == expMask && (x & mantMask) != 0;
  if (mantissaBits < src.mantissaBits) {
    int drop = src.mantissaBits - mantissaBits;
    uint64_t lastBit = uint64_t{1} << drop;
    uint64_t bias = (lastBit >> 1) - 1 + ((x & lastBit) >> drop);
    x = (x + bias) & ~(lastBit - 1);
  }
  if (exponentBits < src.exponentBits) {
    int64_t expBias = (int64_t{1} << (src.exponentBits - 1)) - 1;
    int64_t reducedBias = (int64_t{1} << (exponentBits - 1)) - 1;
    uint64_t maxExp = static_cast<uint64_t>(expBias + reducedBias) << src.mantissaBits;
    uint64_t minExp = static_cast<uint64_t>(expBias - reducedBias) << src.mantissaBits;
    uint64_t e = x & expMask;
    if (e > maxExp) x = (x & signMask) | expMask;
    else if (e <= minExp) x = x & signMask;
  }
  if (isNan) return mantissaBits > 0 ? original : (original & signMask) | expMask;
  return x;
}

HostValues reducePrecision(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& a = v[0].tensor();
  DType t = a.dtype();
  int e = static_cast<int>(op.attr("exponent_bits").asInt());
  int m = static_cast<int>(op.attr("mantissa_bits").asInt());
  if (!isFloat(t)) unsupportedOp(op, "non-float operand");
  const FloatFormat& f = info(t).format;
  if (f.nonFinite != NonFinite::IEEE) unsupportedOp(op, std::string(name(t)) + " has no IEEE layout");
  Literal out(a.type());
  for (int64_t i = 0, n = a.numElements(); i < n; ++i)
    out.setBits(i, reducePrecisionBits(a.bitsAt(i), f, e, m));
  return {std::move(out)};
}

HostValues real(const Op&, const HostValues& v, EvalContext&) {
  const Literal& a = v[0].tensor();
  if (!isComplex(a.dtype())) return {a};
  return {mapComplexToPart(a, [](auto z) { return z.real(); })};
}

HostValues imag(const Op&, const HostValues& v, EvalContext&) {
  const Literal& a = v[0].tensor();
  if (!isComplex(a.dtype())) return {Literal(a.type())};  // zeros
  return {mapComplexToPart(a, [](auto z) { return z.imag(); })};
}

HostValues complex(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& re = v[0].tensor();
  const Literal& im = v[1].tensor();
  Literal out(op.result()->type());
  for (int64_t i = 0, n = out.numElements(); i < n; ++i) out.setComplex(i, {re.floatAt(i), im.floatAt(i)});
  return {std::move(out)};
}

HostValues isFinite(const Op&, const HostValues& v, EvalContext&) {
  return {mapToBool(v[0].tensor(), [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) return static_cast<bool>(std::isfinite(x));
    else return true;
  })};
}

}  // namespace

void addConversionKernels(KernelTable& t) {
  namespace O = ops;
  t.set(O::Convert, &convert);
  t.set(O::BitcastConvert, &bitcastConvert);
  t.set(O::ReducePrecision, &reducePrecision);
  t.set(O::Real, &real);
  t.set(O::Imag, &imag);
  t.set(O::Complex, &complex);
  t.set(O::IsFinite, &isFinite);
}

}  // namespace kiln::interp
