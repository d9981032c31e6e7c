// kiln::Array: an n-d array on a device, as jax.Array is. Values are futures: an op
// returns at once and its value is computed asynchronously; reading it (to_vector, item,
// str, block_until_ready) waits, and an error inside the computation surfaces there. Inside
// a trace (jit, grad, vmap: kiln/transforms.h) an Array is a tracer, a placeholder for a
// value of the program being built; reading a tracer's value is an error.
//
// Devices are reached through a runtime plugin: the one named by $KILN_BACKEND ("cpu",
// the default, or "interp"), or by set_backend() before the first array is made.
// This header needs nothing but the standard library.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/error.h"

namespace kiln {

enum class Dtype : uint8_t {
  Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64,
  BFloat16, Float16, Float32, Float64, Complex64, Complex128,
};
// NumPy's names, as jnp spells them.
inline constexpr Dtype bool_ = Dtype::Bool, int8 = Dtype::Int8, int16 = Dtype::Int16,
                       int32 = Dtype::Int32, int64 = Dtype::Int64, uint8 = Dtype::UInt8,
                       uint16 = Dtype::UInt16, uint32 = Dtype::UInt32, uint64 = Dtype::UInt64,
                       bfloat16 = Dtype::BFloat16, float16 = Dtype::Float16,
                       float32 = Dtype::Float32, float64 = Dtype::Float64,
                       complex64 = Dtype::Complex64, complex128 = Dtype::Complex128;

// NumPy's name of a dtype ("float32").
std::string dtype_name(Dtype dtype);
bool is_floating(Dtype dtype);  // float16, bfloat16, float32, float64
bool is_complex(Dtype dtype);
bool is_integer(Dtype dtype);   // signed or unsigned, not bool

// The dtype of the C type T (float: float32, int32_t: int32, bool: bool_, ...).
template <class T>
constexpr Dtype dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return Dtype::Bool;
  else if constexpr (std::is_same_v<T, float>) return Dtype::Float32;
  else if constexpr (std::is_same_v<T, double>) return Dtype::Float64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return Dtype::Complex64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return Dtype::Complex128;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return sizeof(T) == 1 ? Dtype::Int8 : sizeof(T) == 2 ? Dtype::Int16 : sizeof(T) == 4 ? Dtype::Int32 : Dtype::Int64;
  else if constexpr (std::is_integral_v<T>)
    return sizeof(T) == 1 ? Dtype::UInt8 : sizeof(T) == 2 ? Dtype::UInt16 : sizeof(T) == 4 ? Dtype::UInt32 : Dtype::UInt64;
  else static_assert(sizeof(T) == 0, "kiln: no dtype for this C type");
}

namespace detail {
struct ArrayImpl;
}
class Index;        // kiln/indexing.h
class IndexUpdate;

class Array {
 public:
  // An empty handle: anything but assigning to it throws "usage".
  Array() = default;
  // A C scalar is weakly typed, as a Python scalar is in JAX: with an array operand it
  // takes the array's dtype (x * 2.0 keeps x's float16); alone it is int32, float32,
  // complex64 or bool (JAX's defaults).
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Array(T value) : Array(scalarOf<T>(value)) {}
  Array(std::complex<double> value);

  // Row-major values of dtype `dtype` (the dtype of T when absent) with dimensions
  // `shape`; throws "shape" when the count differs from the shape's. The copy to the
  // device starts now and runs asynchronously.
  template <class T>
  static Array from_vector(const std::vector<T>& values, const std::vector<int64_t>& shape) {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> packs bits; bools are bytes here
      std::vector<uint8_t> bytes(values.begin(), values.end());
      return from_bytes(Dtype::Bool, shape, bytes.data(), bytes.size());
    } else {
      return from_bytes(dtype_of<T>(), shape, values.data(), values.size() * sizeof(T));
    }
  }
  // The same from a span (a C array, part of a buffer), copied before this returns.
  template <class T>
  static Array from_span(std::span<const T> values, const std::vector<int64_t>& shape) {
    static_assert(!std::is_same_v<T, bool>, "kiln: bools as uint8_t spans, or from_vector<bool>");
    return from_bytes(dtype_of<T>(), shape, values.data(), values.size() * sizeof(T));
  }
  static Array from_bytes(Dtype dtype, const std::vector<int64_t>& shape, const void* data, size_t bytes);

  Dtype dtype() const;
  const std::vector<int64_t>& shape() const;
  int64_t ndim() const { return static_cast<int64_t>(shape().size()); }
  int64_t size() const;
  // shape()[axis]; a negative axis counts from the end.
  int64_t dim(int64_t axis) const;
  // Whether this came from a C scalar and has no dtype of its own yet.
  bool weak() const;
  // Whether this is a placeholder of a program being traced.
  bool is_tracer() const;
  bool valid() const { return impl_ != nullptr; }

  // Waits for the value; throws the error of the computation that made it.
  const Array& block_until_ready() const;
  // The values converted to T (row-major), waiting for them. Bool and integers convert
  // exactly; floats through double.
  template <class T>
  std::vector<T> to_vector() const {
    std::vector<T> out;
    if constexpr (std::is_floating_point_v<T>) {
      for (double v : to_doubles()) out.push_back(static_cast<T>(v));
    } else {
      for (int64_t v : to_ints()) out.push_back(static_cast<T>(v));
    }
    return out;
  }
  // The one value of a size-1 array.
  template <class T>
  T item() const {
    std::vector<T> v = to_vector<T>();
    if (v.size() != 1) throw ApiError("usage", "item(): the array has " + std::to_string(v.size()) + " elements, not 1");
    return v[0];
  }
  // Writes the values converted to T into `out`, which must hold size() of them
  // (throws "usage" otherwise), waiting for them.
  template <class T>
  void copy_to(std::span<T> out) const {
    std::vector<T> v = to_vector<T>();
    if (v.size() != out.size())
      throw ApiError("usage", "copy_to: the span holds " + std::to_string(out.size()) + " values, the array " +
                                  std::to_string(v.size()));
    std::copy(v.begin(), v.end(), out.begin());
  }
  std::vector<double> to_doubles() const;
  std::vector<int64_t> to_ints() const;
  // The raw elements: row-major, each in its dtype's storage size, little-endian.
  std::vector<uint8_t> bytes() const;
  // NumPy's text: "[[1. 2.]\n [3. 4.]]" (long dimensions elided); for tracers, their type.
  std::string str() const;
  // "f32[2,3]": dtype and shape.
  std::string type_string() const;

  // NumPy's indexing, a[i] or a[{i, s(1, 3), newaxis, idx}], and JAX's index updates,
  // a.at({i, all}).set(v): kiln/indexing.h.
  Array operator[](const Index& index) const;
  Array operator[](const std::vector<Index>& index) const;
  IndexUpdate at(const Index& index) const;
  IndexUpdate at(const std::vector<Index>& index) const;

  // Conveniences that call the free functions of kiln/numpy.h.
  Array astype(Dtype dtype) const;
  Array reshape(const std::vector<int64_t>& shape) const;
  Array T() const;  // reversed axes

  const std::shared_ptr<detail::ArrayImpl>& impl() const { return impl_; }
  explicit Array(std::shared_ptr<detail::ArrayImpl> impl) : impl_(std::move(impl)) {}

 private:
  template <class T>
  static Array scalarOf(T value) {
    if constexpr (std::is_same_v<T, bool>) return boolScalar(value);
    else if constexpr (std::is_floating_point_v<T>) return floatScalar(static_cast<double>(value));
    else return intScalar(static_cast<int64_t>(value));
  }
  static Array boolScalar(bool value);
  static Array intScalar(int64_t value);
  static Array floatScalar(double value);

  std::shared_ptr<detail::ArrayImpl> impl_;
};

std::ostream& operator<<(std::ostream& out, const Array& a);

// The plugin arrays live on ("cpu", "interp"); only before the first array is made
// (throws "usage" after). The default is $KILN_BACKEND, else "cpu".
void set_backend(const std::string& plugin);
std::string backend();

// How many programs the frontend has compiled (each a cache miss: a new op signature
// outside jit, a new jit signature, a new gradient program), for tests and reports.
int64_t compile_count();

}  // namespace kiln

// Index and IndexUpdate, which Array's operator[] and at() take and return.
#include "kiln/indexing.h"
