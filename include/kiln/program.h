// Programs as text: load a StableHLO program, verify it, run it on the reference
// interpreter with host arrays, optimize it with the pass pipeline, print it. This header
// needs nothing but the standard library.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kiln/error.h"

namespace kiln {

// A dense array in host memory, owned by value (copies copy the bytes). The element type
// is spelt as in StableHLO text ("f32", "i64", "ui8", "i1", "bf16", "complex<f32>"); the
// bytes are the elements in row-major order, each in the dtype's storage size (i1: one
// byte, 0 or 1), little-endian — for the C types of values<T>() exactly a C array.
class HostArray {
 public:
  // Checks nothing beyond sizes; run() rejects a dtype or shape the program does not take.
  HostArray(std::string dtype, std::vector<int64_t> dims, std::vector<uint8_t> bytes)
      : dtype_(std::move(dtype)), dims_(std::move(dims)), bytes_(std::move(bytes)) {}

  // From C values: T is float (f32), double (f64), int8_t, int16_t, int32_t, int64_t
  // (i8..i64) or uint8_t, uint16_t, uint32_t, uint64_t (ui8..ui64). Throws ApiError
  // ("usage") when the count does not match the dims.
  template <class T>
  static HostArray of(std::vector<int64_t> dims, const std::vector<T>& values) {
    HostArray a(dtypeOf<T>(), std::move(dims), std::vector<uint8_t>(values.size() * sizeof(T)));
    if (static_cast<int64_t>(values.size()) != a.numElements())
      throw ApiError("usage", "HostArray::of: " + std::to_string(values.size()) + " values for " +
                                  std::to_string(a.numElements()) + " elements");
    if (!values.empty()) std::memcpy(a.bytes_.data(), values.data(), a.bytes_.size());
    return a;
  }

  // The elements as C values of the array's own dtype (same T as of<T>); throws
  // ApiError ("usage") for another T.
  template <class T>
  std::vector<T> values() const {
    if (dtype_ != dtypeOf<T>())
      throw ApiError("usage", "HostArray::values: the array holds " + dtype_ + ", not " + dtypeOf<T>());
    std::vector<T> out(bytes_.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), bytes_.data(), out.size() * sizeof(T));
    return out;
  }

  const std::string& dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return n;
  }

  // The StableHLO spelling of T's dtype, for the T that of<T>() and values<T>() take.
  template <class T>
  static std::string dtypeOf() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_signed_v<T>)
      return "i" + std::to_string(8 * sizeof(T));
    else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      return "ui" + std::to_string(8 * sizeof(T));
    else static_assert(sizeof(T) == 0, "HostArray: use float, double or a fixed-width integer type");
  }

 private:
  std::string dtype_;
  std::vector<int64_t> dims_;
  std::vector<uint8_t> bytes_;
};

// One StableHLO module (one part of a file; `// -----` splits are refused), owned by the
// Program. A Program is movable, not copyable. verify(), run() and print() leave it as it
// is and may be called from several threads at once; optimize() changes it and must not
// run at the same time as anything else on the same Program. Nothing returned refers
// back to the Program: results and text are values. A moved-from Program may only be
// assigned to or destroyed.
class Program {
 public:
  // Reads StableHLO MLIR text (generic or pretty form, as JAX exports it). Checks the
  // syntax only; `name` is what error messages call the text.
  static Program parse(std::string_view text, const std::string& name = "<text>");
  // The same for a file (throws "io" when it cannot be read).
  static Program load(const std::string& path);

  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  ~Program();

  // Checks every rule of the StableHLO spec (shapes, dtypes, attributes); throws
  // "verify" (or "shape", "type") naming the op and its position. run() and optimize()
  // verify first when this has not been done, so bad IR is an error, never a crash.
  // Once it has succeeded it is not repeated (a failure is, on the next call).
  void verify() const;

  // The names of the module's functions, in order.
  std::vector<std::string> functions() const;

  // Runs function `entry` on the reference interpreter (exact StableHLO semantics) with
  // one array per parameter, in order, and returns one array per result. Throws "usage"
  // for an unknown entry or the wrong number of inputs, "type" for an input of the
  // wrong dtype or shape, "runtime" for failures while running.
  std::vector<HostArray> run(const std::vector<HostArray>& inputs, const std::string& entry = "main") const;

  // Optimizes the program in place with the pass pipeline (`kiln compile`): `passes` is
  // a --passes list ("inline,fixpoint(simplify,fold),cse"), empty for the whole
  // pipeline. Returns the report `kiln compile --report` prints. Throws "usage" for a
  // bad list, before any pass runs. The optimized program computes the same results.
  std::string optimize(const std::string& passes = "");

  // StableHLO text that parse() reads back to the same program: the pretty form, or
  // every op in the generic form.
  std::string print(bool generic = false) const;

 private:
  struct Impl;
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln
