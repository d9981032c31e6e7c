// Typed element access for kernels: every dtype has a C++ "compute type" (int8_t for
// i2/i4/i8, float for f16/bf16/fp8, std::complex<double> for complex<f64>, ...), and
// Reader/Writer move elements between a Literal's storage and that type, rounding narrow
// floats to their format and wrapping narrow integers to their width on the way in.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ir/float_format.h"
#include "ir/literal.h"
#include "support/error.h"

namespace kiln::interp {

template <class T>
struct TypeTag {
  using type = T;
};

template <class T>
inline constexpr bool kIsComplex = false;
template <class T>
inline constexpr bool kIsComplex<std::complex<T>> = true;

// Calls f(TypeTag<T>{}) with the compute type T of `t`.
template <class F>
decltype(auto) visitDType(DType t, F&& f) {
  switch (t) {
    case DType::I1: return f(TypeTag<bool>{});
    case DType::I2:
    case DType::I4:
    case DType::I8: return f(TypeTag<int8_t>{});
    case DType::I16: return f(TypeTag<int16_t>{});
    case DType::I32: return f(TypeTag<int32_t>{});
    case DType::I64: return f(TypeTag<int64_t>{});
    case DType::U2:
    case DType::U4:
    case DType::U8: return f(TypeTag<uint8_t>{});
    case DType::U16: return f(TypeTag<uint16_t>{});
    case DType::U32: return f(TypeTag<uint32_t>{});
    case DType::U64: return f(TypeTag<uint64_t>{});
    case DType::F64: return f(TypeTag<double>{});
    case DType::C64: return f(TypeTag<std::complex<float>>{});
    case DType::C128: return f(TypeTag<std::complex<double>>{});
    default: return f(TypeTag<float>{});  // f32 and every narrower float
  }
}

// Whether the Literal storage of `t` is exactly its compute type's bytes.
inline bool isNativeStorage(DType t) {
  switch (t) {
    case DType::I8: case DType::I16: case DType::I32: case DType::I64:
    case DType::U8: case DType::U16: case DType::U32: case DType::U64:
    case DType::F32: case DType::F64: case DType::C64: case DType::C128:
      return true;
    default:
      return false;
  }
}

template <class T>
class Reader {
 public:
  explicit Reader(const Literal& lit)
      : lit_(&lit), data_(lit.storage()), splat_(lit.isSplat()), native_(isNativeStorage(lit.dtype())) {}
  T operator[](int64_t i) const {
    if (splat_) i = 0;
    if (native_) {
      T v;
      std::memcpy(&v, data_ + static_cast<size_t>(i) * sizeof(T), sizeof(T));
      return v;
    }
    return slow(i);
  }

 private:
  T slow(int64_t i) const {
    DType t = lit_->dtype();
    if constexpr (std::is_same_v<T, bool>) {
      return lit_->bitsAt(i) != 0;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(lit_->intAt(i));
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(bitsToFloat(lit_->bitsAt(i), t));
    } else {
      throw Error(ErrorKind::Internal, "no slow read for this type");
    }
  }
  const Literal* lit_;
  const uint8_t* data_;
  bool splat_;
  bool native_;
};

template <class T>
class Writer {
 public:
  explicit Writer(Literal& lit)
      : lit_(&lit), data_(lit.mutableStorage()), native_(isNativeStorage(lit.dtype())) {}
  void set(int64_t i, T v) {
    if (native_) {
      std::memcpy(data_ + static_cast<size_t>(i) * sizeof(T), &v, sizeof(T));
      return;
    }
    if constexpr (std::is_same_v<T, bool>) {
      data_[i] = v ? 1 : 0;
    } else if constexpr (std::is_integral_v<T>) {
      lit_->setInt(i, static_cast<int64_t>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      lit_->setBits(i, floatToBits(static_cast<double>(v), lit_->dtype()));
    } else {
      throw Error(ErrorKind::Internal, "no slow write for this type");
    }
  }

 private:
  Literal* lit_;
  uint8_t* data_;
  bool native_;
};

// Integer arithmetic that wraps like the hardware does, without C++'s signed overflow UB.
template <class T>
T wrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T>
T wrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T>
T wrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  // Promote to at least unsigned int so that uint16_t * uint16_t cannot overflow int.
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b)));
}

}  // namespace kiln::interp
