// What the LAPACK custom-call property tests share: calls built the way JAX writes them
// (a custom_call parsed from text, column-major layouts, attributes in
// mhlo.backend_config) and run through kernels::runLapackCall, tensors of the four
// element types read and written as complex<double> matrices, and the matrix algebra
// the properties need (products, adjoints, norms, random and ill-conditioned inputs).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ir/ops/stablehlo.h"
#include "kernels/lapack/lapack_call.h"
#include "stablehlo/parser.h"

namespace kiln::kernels::lapack_test {

using Z = std::complex<double>;

// ---- dense matrices in complex<double> ----
struct Mat {
  int64_t rows = 0, cols = 0;
  std::vector<Z> v;
  Mat() = default;
  Mat(int64_t r, int64_t c) : rows(r), cols(c), v(static_cast<size_t>(r * c)) {}
  Z& operator()(int64_t r, int64_t c) { return v[static_cast<size_t>(r * cols + c)]; }
  Z operator()(int64_t r, int64_t c) const { return v[static_cast<size_t>(r * cols + c)]; }
};

inline Mat identity(int64_t n) {
  Mat m(n, n);
  for (int64_t i = 0; i < n; ++i) m(i, i) = 1;
  return m;
}
inline Mat operator*(const Mat& a, const Mat& b) {
  EXPECT_EQ(a.cols, b.rows);
  Mat c(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t k = 0; k < a.cols; ++k)
      for (int64_t j = 0; j < b.cols; ++j) c(i, j) += a(i, k) * b(k, j);
  return c;
}
inline Mat operator-(const Mat& a, const Mat& b) {
  Mat c = a;
  for (size_t i = 0; i < c.v.size(); ++i) c.v[i] -= b.v[i];
  return c;
}
inline Mat operator+(const Mat& a, const Mat& b) {
  Mat c = a;
  for (size_t i = 0; i < c.v.size(); ++i) c.v[i] += b.v[i];
  return c;
}
inline Mat scaled(const Mat& a, Z s) {
  Mat c = a;
  for (Z& z : c.v) z *= s;
  return c;
}
inline Mat adjoint(const Mat& a) {
  Mat c(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) c(j, i) = std::conj(a(i, j));
  return c;
}
inline double norm(const Mat& a) {
  double s = 0;
  for (const Z& z : a.v) s += std::norm(z);
  return std::sqrt(s);
}
// ||a - b|| relative to ||scale|| (or absolute when scale is zero).
inline double relativeError(const Mat& a, const Mat& b, const Mat& scale) {
  const double n = norm(scale);
  return norm(a - b) / (n > 0 ? n : 1);
}

// ---- the element types ----
template <class T>
struct Element;
template <>
struct Element<float> {
  static constexpr DType dtype = DType::F32;
  static constexpr char prefix = 's';
  static constexpr bool complex = false;
  static constexpr double eps = 1.2e-7;
};
template <>
struct Element<double> {
  static constexpr DType dtype = DType::F64;
  static constexpr char prefix = 'd';
  static constexpr bool complex = false;
  static constexpr double eps = 2.3e-16;
};
template <>
struct Element<std::complex<float>> {
  static constexpr DType dtype = DType::C64;
  static constexpr char prefix = 'c';
  static constexpr bool complex = true;
  static constexpr double eps = 1.2e-7;
};
template <>
struct Element<std::complex<double>> {
  static constexpr DType dtype = DType::C128;
  static constexpr char prefix = 'z';
  static constexpr bool complex = true;
  static constexpr double eps = 2.3e-16;
};

// ---- tensors: kiln's row-major bytes ----
struct Tensor {
  Type type;
  std::vector<uint8_t> bytes;
  explicit Tensor(Type t) : type(std::move(t)), bytes(static_cast<size_t>(type.byteSize())) {}

  int64_t batch() const {
    int64_t b = 1;
    for (int64_t d = 0; d + 2 < type.rank(); ++d) b *= type.dim(d);
    return b;
  }
  // Element i (row-major) as complex<double>, and back.
  Z get(int64_t i) const {
    const uint8_t* p = bytes.data() + i * storageBytes(type.dtype());
    switch (type.dtype()) {
      case DType::F32:
        return load<float>(p);
      case DType::F64:
        return load<double>(p);
      case DType::C64:
        return load<std::complex<float>>(p);
      case DType::C128:
        return load<std::complex<double>>(p);
      case DType::I32:
        return load<int32_t>(p);
      default:
        ADD_FAILURE() << "no element access for " << type.str();
        return 0;
    }
  }
  void set(int64_t i, Z z) {
    uint8_t* p = bytes.data() + i * storageBytes(type.dtype());
    switch (type.dtype()) {
      case DType::F32:
        return store(p, static_cast<float>(z.real()));
      case DType::F64:
        return store(p, z.real());
      case DType::C64:
        return store(p, std::complex<float>(z));
      case DType::C128:
        return store(p, z);
      case DType::I32:
        return store(p, static_cast<int32_t>(z.real()));
      default:
        ADD_FAILURE() << "no element access for " << type.str();
    }
  }
  int32_t info(int64_t i) const { return static_cast<int32_t>(get(i).real()); }
  // Matrix `b` of a [..., rows, cols] tensor, and vector `b` of a [..., n] one.
  Mat matrix(int64_t b) const {
    const int64_t r = type.dim(type.rank() - 2), c = type.dim(type.rank() - 1);
    Mat m(r, c);
    for (int64_t i = 0; i < r * c; ++i) m.v[static_cast<size_t>(i)] = get(b * r * c + i);
    return m;
  }
  void setMatrix(int64_t b, const Mat& m) {
    for (int64_t i = 0; i < m.rows * m.cols; ++i)
      set(b * m.rows * m.cols + i, m.v[static_cast<size_t>(i)]);
  }
  std::vector<Z> vector(int64_t b) const {
    const int64_t n = type.dim(type.rank() - 1);
    std::vector<Z> out;
    for (int64_t i = 0; i < n; ++i) out.push_back(get(b * n + i));
    return out;
  }
  void setVector(int64_t b, const std::vector<Z>& x) {
    for (size_t i = 0; i < x.size(); ++i)
      set(b * static_cast<int64_t>(x.size()) + static_cast<int64_t>(i), x[i]);
  }

 private:
  template <class E>
  static Z load(const uint8_t* p) {
    E e;
    std::memcpy(&e, p, sizeof e);
    if constexpr (std::is_integral_v<E>)
      return Z(static_cast<double>(e), 0);
    else
      return Z(e);
  }
  template <class E>
  static void store(uint8_t* p, E e) {
    std::memcpy(p, &e, sizeof e);
  }
};

inline Type tensorType(DType dtype, Shape batch, std::initializer_list<int64_t> inner) {
  batch.insert(batch.end(), inner.begin(), inner.end());
  return Type::tensor(dtype, std::move(batch));
}

// jaxlib's layouts: column-major matrices (batch outermost) for the buffers of the
// operands' largest rank, row-major for the others (vectors of a batch, info, alpha).
inline std::string layoutOf(const Type& t, int64_t matrixRank) {
  const int64_t r = t.rank();
  if (r == 0) return "dense<> : tensor<0xindex>";
  std::vector<int64_t> order;
  if (r >= 2 && r == matrixRank) order = {r - 2, r - 1};
  for (int64_t d = r - 1; d >= 0; --d)
    if (std::find(order.begin(), order.end(), d) == order.end()) order.push_back(d);
  std::string s = "dense<[";
  for (size_t i = 0; i < order.size(); ++i) s += (i ? ", " : "") + std::to_string(order[i]);
  return s + "]> : tensor<" + std::to_string(r) + "xindex>";
}

// The custom_call text JAX writes for `target` (result types as given), in a @main.
inline std::string callText(const std::string& target, const std::vector<Type>& operands,
                            const std::vector<Type>& results, const std::string& config,
                            bool layouts = true) {
  std::string params, types, operandTypes, resultTypes, operandLayouts, resultLayouts, names;
  int64_t matrixRank = 0;
  for (const Type& t : operands) matrixRank = std::max(matrixRank, t.rank());
  for (size_t i = 0; i < operands.size(); ++i) {
    params += (i ? ", " : "") + std::string("%a") + std::to_string(i) + ": " + operands[i].str();
    names += (i ? ", " : "") + std::string("%a") + std::to_string(i);
    operandTypes += (i ? ", " : "") + operands[i].str();
    operandLayouts += (i ? ", " : "") + layoutOf(operands[i], matrixRank);
  }
  std::string returned;
  for (size_t i = 0; i < results.size(); ++i) {
    resultTypes += (i ? ", " : "") + results[i].str();
    resultLayouts += (i ? ", " : "") + layoutOf(results[i], matrixRank);
    returned +=
        (i ? ", " : "") + (results.size() == 1 ? std::string("%r") : "%r#" + std::to_string(i));
  }
  std::string attrs = "mhlo.backend_config = {" + config + "}";
  if (layouts)
    attrs +=
        ", operand_layouts = [" + operandLayouts + "], result_layouts = [" + resultLayouts + "]";
  const std::string count = results.size() == 1 ? "" : ":" + std::to_string(results.size());
  return "func.func @main(" + params + ") -> (" + resultTypes + ") {\n  %r" + count +
         " = stablehlo.custom_call @" + target + "(" + names + ") {" + attrs + "} : (" +
         operandTypes + ") -> (" + resultTypes + ")\n  return " + returned + " : " + resultTypes +
         "\n}\n";
}

// The custom_call of a parsed @main.
inline const Op& customCallOf(const Module& module) {
  for (const auto& op : module.lookup("main")->body().ops())
    if (op->is(ops::CustomCall)) return *op;
  throw std::runtime_error("no custom_call");
}

// Runs `target` on `operands` as JAX would call it; returns the results.
inline std::vector<Tensor> runCall(const std::string& target, const std::vector<Tensor>& operands,
                                   const std::vector<Type>& resultTypes,
                                   const std::string& config = "", bool layouts = true) {
  std::vector<Type> operandTypes;
  for (const Tensor& t : operands) operandTypes.push_back(t.type);
  auto module =
      stablehlo::parseModule(callText(target, operandTypes, resultTypes, config, layouts));
  std::optional<LapackCall> call = lapackCallOf(customCallOf(*module));
  if (!call) throw std::runtime_error(target + " is not a LAPACK call");
  std::vector<Tensor> results;
  for (const Type& t : resultTypes) results.emplace_back(t);
  std::vector<const void*> in;
  std::vector<void*> out;
  for (const Tensor& t : operands) in.push_back(t.bytes.data());
  for (Tensor& t : results) {
    std::fill(t.bytes.begin(), t.bytes.end(), uint8_t{0xA5});  // the call must write every byte
    out.push_back(t.bytes.data());
  }
  runLapackCall(*call, in.data(), out.data());
  return results;
}

// ---- inputs ----
template <class T>
struct Inputs {
  std::mt19937_64 rng{42};
  Z next() {
    std::uniform_real_distribution<double> u(-1, 1);
    return Element<T>::complex ? Z(u(rng), u(rng)) : Z(u(rng), 0);
  }
  Mat random(int64_t r, int64_t c) {
    Mat m(r, c);
    for (Z& z : m.v) z = next();
    return m;
  }
  // A random unitary (orthogonal for real types): a product of Householder reflectors.
  Mat unitary(int64_t n) {
    Mat q = identity(n);
    for (int64_t k = 0; k < n; ++k) {
      Mat v = random(n, 1);
      const double vv = norm(v) * norm(v);
      Mat h = identity(n) - scaled(v * adjoint(v), 2 / vv);
      q = q * h;
    }
    return q;
  }
  // U diag(s) V^H with singular values from 1 down to `smallest`, spaced geometrically.
  Mat conditioned(int64_t r, int64_t c, double smallest) {
    const int64_t k = std::min(r, c);
    Mat s(r, c);
    for (int64_t i = 0; i < k; ++i)
      s(i, i) = std::pow(smallest, k > 1 ? static_cast<double>(i) / (k - 1) : 0.0);
    return unitary(r) * s * adjoint(unitary(c));
  }
  // Hermitian positive definite with eigenvalues from 1 down to `smallest`.
  Mat positiveDefinite(int64_t n, double smallest) {
    Mat u = unitary(n), d(n, n);
    for (int64_t i = 0; i < n; ++i)
      d(i, i) = std::pow(smallest, n > 1 ? static_cast<double>(i) / (n - 1) : 0.0);
    Mat a = u * d * adjoint(u);
    for (int64_t i = 0; i < n; ++i) a(i, i) = a(i, i).real();  // exactly Hermitian
    return a;
  }
  Mat hermitian(int64_t n) {
    Mat b = random(n, n);
    return b + adjoint(b);
  }
};

// A matrix rounded to T's precision (what the kernel actually received).
template <class T>
Mat rounded(const Mat& m) {
  Tensor t(Type::tensor(Element<T>::dtype, {m.rows, m.cols}));
  t.setMatrix(0, m);
  return t.matrix(0);
}

// Tolerance for a backward-stable result of order n: a multiple of n * eps.
template <class T>
double tolerance(int64_t n) {
  return 30.0 * static_cast<double>(std::max<int64_t>(n, 1)) * Element<T>::eps;
}

template <class T>
std::string name(const char* routine) {
  return std::string("lapack_") + Element<T>::prefix + routine + "_ffi";
}

using ElementTypes = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;

}  // namespace kiln::kernels::lapack_test
