// Kernels: binary arithmetic, bitwise and shift ops, element by element. Integer edge
// cases follow XLA (the spec leaves them open): x / 0 is all ones, x % 0 is x,
// MIN / -1 wraps to MIN and MIN % -1 is 0; shifts by the bit width or more give 0
// (or the sign for arithmetic right shifts).
#include <bit>

#include "interp/elementwise.h"
#include "interp/kernels.h"
#include "ir/ops/stablehlo.h"
#include "kernels/complex_ops.h"
#include "kernels/scalar_math.h"

namespace kiln::interp {
using namespace kernels;  // NOLINT: the shared element functions (kernels/)
namespace {

template <class T>
constexpr bool kIsBool = std::is_same_v<T, bool>;
template <class T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;


HostValues add(const Op&, const HostValues& v, EvalContext&) {
  return {mapBinary(in(v, 0), in(v, 1), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsBool<T>) return T(a || b);
    else if constexpr (kIsInt<T>) return wrapAdd(a, b);
    else return T(a + b);
  })};
}

HostValues subtract(const Op&, const HostValues& v, EvalContext&) {
  return {mapBinary(in(v, 0), in(v, 1), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsBool<T>) return T(a != b);
    else if constexpr (kIsInt<T>) return wrapSub(a, b);
    else return T(a - b);
  })};
}

HostValues multiply(const Op&, const HostValues& v, EvalContext&) {
  return {mapBinary(in(v, 0), in(v, 1), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsBool<T>) return T(a && b);
    else if constexpr (kIsInt<T>) return wrapMul(a, b);
    else return T(a * b);
  })};
}

HostValues divide(const Op& op, const HostValues& v, EvalContext&) {
  return {mapBinary(in(v, 0), in(v, 1), [&](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsBool<T>) {
      runtimeError(op, "division of booleans");
      return a;
    } else if constexpr (kIsInt<T>) {
      if (b == 0) return static_cast<T>(~T(0));
      if constexpr (std::is_signed_v<T>)
        if (b == -1) return wrapSub(T(0), a);  // MIN / -1 wraps to MIN
      return static_cast<T>(a / b);
    } else {
      return T(a / b);
    }
  })};
}

HostValues remainder(const Op& op, const HostValues& v, EvalContext&) {
  return {mapBinary(in(v, 0), in(v, 1), [&](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsInt<T>) {
      if (b == 0) return a;
      if constexpr (std::is_signed_v<T>)
        if (b == -1) return T(0);
      return static_cast<T>(a % b);
    } else if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else {
      unsupportedOp(op, "remainder of booleans or complex numbers");
      return a;
    }
  })};
}

template <bool kMax>
HostValues extremum(const Op&, const HostValues& v, EvalContext&) {
  return {mapBinary(in(v, 0), in(v, 1), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsBool<T>) {
      return T(kMax ? (a || b) : (a && b));
    } else if constexpr (kIsInt<T>) {
      return kMax ? std::max(a, b) : std::min(a, b);
    } else if constexpr (std::is_floating_point_v<T>) {
      return kMax ? ieeeMaximum(a, b) : ieeeMinimum(a, b);
    } else {  // complex: lexicographic on (real, imag)
      bool aLess = a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
      return kMax ? (aLess ? b : a) : (aLess ? a : b);
    }
  })};
}

// Integer power by squaring; negative exponents give 0 except for bases 1 and -1.
template <class T>
T integerPower(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
      return 0;
    }
  }
  T result = 1;
  using U = std::make_unsigned_t<T>;
  U e = static_cast<U>(exponent);
  while (e) {
    if (e & 1) result = wrapMul(result, base);
    base = wrapMul(base, base);
    e >>= 1;
  }
  return result;
}

HostValues power(const Op& op, const HostValues& v, EvalContext&) {
  return {mapBinary(in(v, 0), in(v, 1), [&](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsBool<T>) {
      unsupportedOp(op, "power of booleans");
      return a;
    } else if constexpr (kIsInt<T>) {
      return integerPower(a, b);
    } else if constexpr (kIsComplex<T>) {
      return complexBinary(ops::Power, a, b);
    } else {
      return T(std::pow(a, b));
    }
  })};
}

HostValues atan2(const Op& op, const HostValues& v, EvalContext&) {
  return {mapBinary(in(v, 0), in(v, 1), [&](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_floating_point_v<T>) {
      return std::atan2(a, b);
    } else if constexpr (kIsComplex<T>) {
      return complexBinary(ops::Atan2, a, b);
    } else {
      unsupportedOp(op, "atan2 of integers");
      return a;
    }
  })};
}

enum class Bitwise { And, Or, Xor };

template <Bitwise kOp>
HostValues bitwise(const Op& op, const HostValues& v, EvalContext&) {
  return {mapBinary(in(v, 0), in(v, 1), [&](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsBool<T>) {
      return T(kOp == Bitwise::And ? (a && b) : kOp == Bitwise::Or ? (a || b) : (a != b));
    } else if constexpr (kIsInt<T>) {
      return static_cast<T>(kOp == Bitwise::And ? (a & b) : kOp == Bitwise::Or ? (a | b) : (a ^ b));
    } else {
      unsupportedOp(op, "bitwise op on floats");
      return a;
    }
  })};
}

enum class Shift { Left, RightLogical, RightArithmetic };

template <Shift kShift>
HostValues shift(const Op& op, const HostValues& v, EvalContext&) {
  // Narrow types (i4 computed as int8_t) shift their own width of bits.
  const int width = bitWidth(in(v, 0).dtype());
  return {mapBinary(in(v, 0), in(v, 1), [&](auto a, auto b) {
    using T = decltype(a);
    if constexpr (kIsInt<T>) {
      uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
      uint64_t bits = static_cast<uint64_t>(static_cast<int64_t>(a)) & mask;
      bool negative = (bits >> (width - 1)) & 1;
      // The amount is read as unsigned: negative amounts are huge.
      uint64_t amount = static_cast<uint64_t>(static_cast<int64_t>(b)) & mask;
      bool tooFar = amount >= static_cast<uint64_t>(width);
      uint64_t out;
      if (kShift == Shift::Left) {
        out = tooFar ? 0 : (bits << amount) & mask;
      } else if (kShift == Shift::RightLogical) {
        out = tooFar ? 0 : bits >> amount;
      } else {
        uint64_t signFill = negative ? mask : 0;
        out = tooFar ? signFill : ((bits >> amount) | (signFill & ~(mask >> amount))) & mask;
      }
      // Back to the compute type: sign-extend signed types from their width.
      if constexpr (std::is_signed_v<T>) {
        uint64_t sign = uint64_t{1} << (width - 1);
        return static_cast<T>(static_cast<int64_t>((out ^ sign) - sign));
      } else {
        return static_cast<T>(out);
      }
    } else {
      unsupportedOp(op, "shift of non-integers");
      return a;
    }
  })};
}

}  // namespace

void addArithmeticKernels(KernelTable& t) {
  namespace O = ops;
  t.set(O::Add, &add);
  t.set(O::Subtract, &subtract);
  t.set(O::Multiply, &multiply);
  t.set(O::Divide, &divide);
  t.set(O::Remainder, &remainder);
  t.set(O::Maximum, &extremum<true>);
  t.set(O::Minimum, &extremum<false>);
  t.set(O::Power, &power);
  t.set(O::Atan2, &atan2);
  t.set(O::And, &bitwise<Bitwise::And>);
  t.set(O::Or, &bitwise<Bitwise::Or>);
  t.set(O::Xor, &bitwise<Bitwise::Xor>);
  t.set(O::ShiftLeft, &shift<Shift::Left>);
  t.set(O::ShiftRightLogical, &shift<Shift::RightLogical>);
  t.set(O::ShiftRightArithmetic, &shift<Shift::RightArithmetic>);
}

}  // namespace kiln::interp
