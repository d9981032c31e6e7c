// What the transform tests share.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>

#include <cmath>
#include <random>

#include "interp/interpreter.h"
#include "ir/literal.h"
#include "ir/verifier.h"
#include "stablehlo/parser.h"
#include "support/error.h"
#include "transforms/autodiff.h"

namespace kiln::transforms::test_util {

// "kind: message" of the kiln::Error that `fn` throws, or "no error".
inline std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return std::string(errorKindName(e.kind())) + ": " + e.message();
  }
  return "no error";
}

// Slice `index` of `lit` along `axis`.
inline Literal sliceAt(const Literal& lit, int64_t axis, int64_t index) {
  Shape shape = lit.shape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t n = shape[static_cast<size_t>(axis)];
  shape.erase(shape.begin() + axis);
  Literal out(Type::tensor(lit.dtype(), shape));
  const size_t width = static_cast<size_t>(storageBytes(lit.dtype()));
  Literal full = lit;
  const uint8_t* src = full.mutableStorage();
  uint8_t* dst = out.mutableStorage();
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(dst + static_cast<size_t>(o * inner) * width, src + static_cast<size_t>((o * n + index) * inner) * width,
                static_cast<size_t>(inner) * width);
  return out;
}

// Expects `a` and `b` to hold the same type and the same bytes (vmap is checked bit for bit).
inline void expectSameBits(const Literal& a, const Literal& b, const std::string& what) {
  ASSERT_EQ(a.type(), b.type()) << what;
  const size_t bytes = static_cast<size_t>(a.numElements() * storageBytes(a.dtype()));
  Literal x = a, y = b;
  EXPECT_EQ(std::memcmp(x.mutableStorage(), y.mutableStorage(), bytes), 0) << what;
}

// Ops that the transforms see through their StableHLO decompositions
// (ir/stablehlo_decompositions.h): broadcast, torch_index_select, composite, and the
// dynamic_* ops with constant shape and padding operands. f64, for autodiff and vmap.
inline const char* kOpsThroughStableHloDecompositions = R"(
    func.func @impl(%a: tensor<2x3xf64>) -> tensor<2x3xf64> {
      %s = stablehlo.sine %a : tensor<2x3xf64>
      %m = stablehlo.multiply %s, %a : tensor<2x3xf64>
      return %m : tensor<2x3xf64>
    }
    func.func @main(%x: tensor<2x3xf64>, %k: tensor<2x2x2xf64>) -> (tensor<4x2x3xf64>, tensor<2x2xf64>, tensor<2x3xf64>, tensor<2x2x3xf64>, tensor<3x2xf64>, tensor<2x3xf64>, tensor<2x2xf64>, tensor<3x7xf64>, tensor<1x2x3xf64>) {
      %b = stablehlo.broadcast %x, sizes = [4] : (tensor<2x3xf64>) -> tensor<4x2x3xf64>
      %ids = stablehlo.constant dense<[[2, 0], [1, 1]]> : tensor<2x2xi64>
      %t = "stablehlo.torch_index_select"(%x, %ids) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<2x3xf64>, tensor<2x2xi64>) -> tensor<2x2xf64>
      %c = "stablehlo.composite"(%x) {name = "my.sin_times", decomposition = @impl} : (tensor<2x3xf64>) -> tensor<2x3xf64>
      %shape = stablehlo.constant dense<[2, 2, 3]> : tensor<3xi64>
      %db = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [1, 2] : (tensor<2x3xf64>, tensor<3xi64>) -> tensor<2x2x3xf64>
      %rs = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
      %dr = stablehlo.dynamic_reshape %x, %rs : (tensor<2x3xf64>, tensor<2xi64>) -> tensor<3x2xf64>
      %is = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
      %di = "stablehlo.dynamic_iota"(%is) {iota_dimension = 1 : i64} : (tensor<2xi64>) -> tensor<2x3xf64>
      %dm = stablehlo.multiply %di, %x : tensor<2x3xf64>
      %gi = stablehlo.constant dense<[[1], [0]]> : tensor<2x1xi64>
      %sizes = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
      %dg = "stablehlo.dynamic_gather"(%x, %gi, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<2x3xf64>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x2xf64>
      %pv = stablehlo.constant dense<0.5> : tensor<f64>
      %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
      %hi = stablehlo.constant dense<[0, 2]> : tensor<2xi64>
      %in = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
      %dp = stablehlo.dynamic_pad %x, %pv, %lo, %hi, %in : (tensor<2x3xf64>, tensor<f64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x7xf64>
      %xr = stablehlo.reshape %x : (tensor<2x3xf64>) -> tensor<1x2x3xf64>
      %pad = stablehlo.constant dense<[[1, 0]]> : tensor<1x2xi64>
      %dc = "stablehlo.dynamic_conv"(%xr, %k, %pad) {dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x2x3xf64>, tensor<2x2x2xf64>, tensor<1x2xi64>) -> tensor<1x2x3xf64>
      return %b, %t, %c, %db, %dr, %dm, %dg, %dp, %dc : tensor<4x2x3xf64>, tensor<2x2xf64>, tensor<2x3xf64>, tensor<2x2x3xf64>, tensor<3x2xf64>, tensor<2x3xf64>, tensor<2x2xf64>, tensor<3x7xf64>, tensor<1x2x3xf64>
    })";

// ---- derivative checks (programs whose parameters and results are f64 tensors) ----

inline Literal f64(double v) {
  Literal lit(Type::scalar(DType::F64));
  lit.setFloat(0, v);
  return lit;
}

struct Domain {
  double lo = -2, hi = 2;
};

inline Literal randomLiteral(const Type& type, std::mt19937_64& rng, Domain d) {
  Literal lit(type);
  std::uniform_real_distribution<double> u(d.lo, d.hi);
  for (int64_t i = 0; i < lit.numElements(); ++i) lit.setFloat(i, u(rng));
  return lit;
}

inline double dotProduct(const interp::HostValues& a, const interp::HostValues& b, size_t aFirst, size_t bFirst, size_t n) {
  double s = 0;
  for (size_t k = 0; k < n; ++k) {
    const Literal& x = a[aFirst + k].tensor();
    const Literal& y = b[bFirst + k].tensor();
    for (int64_t i = 0; i < x.numElements(); ++i) s += x.floatAt(i) * y.floatAt(i);
  }
  return s;
}

// f(x + s·v) for every (float) parameter.
inline interp::HostValues shifted(interp::Interpreter& in, const std::string& fn, const interp::HostValues& x, const interp::HostValues& v,
                                   double s) {
  interp::HostValues args;
  for (size_t i = 0; i < x.size(); ++i) {
    Literal p = x[i].tensor();
    for (int64_t k = 0; k < p.numElements(); ++k) p.setFloat(k, p.floatAt(k) + s * v[i].tensor().floatAt(k));
    args.push_back(p);
  }
  return in.call(fn, args);
}

// What checkDerivatives checks. ConsistencyOnly skips the finite differences: for
// programs whose derivative is deliberately not the function's (custom rules,
// stop_gradient), where only the two modes must agree.
enum class Modes { Both, ForwardOnly, ConsistencyOnly };

// One point of checkDerivatives: jvp at `x` along `v` against central differences, and
// <u, J v> = <J^T u, v>.
inline void checkDerivativesAt(interp::Interpreter& in, const Function& f, const interp::HostValues& x,
                               const interp::HostValues& v, const interp::HostValues& u, Modes modes) {
  const size_t np = f.numParams(), nr = f.resultTypes().size();
  interp::HostValues args = x;
  args.insert(args.end(), v.begin(), v.end());
  interp::HostValues j = in.call("main_jvp", args);
  // Finite differences of every result along v.
  const double h = 1e-5;
  interp::HostValues plus = shifted(in, "main", x, v, h), minus = shifted(in, "main", x, v, -h);
  for (size_t r = 0; r < nr && modes != Modes::ConsistencyOnly; ++r) {
    const Literal& t = j[nr + r].tensor();
    for (int64_t i = 0; i < t.numElements(); ++i) {
      double fd = (plus[r].tensor().floatAt(i) - minus[r].tensor().floatAt(i)) / (2 * h);
      EXPECT_NEAR(t.floatAt(i), fd, 1e-6 * (1 + std::abs(fd))) << "result " << r << " element " << i;
    }
  }
  if (modes == Modes::ForwardOnly) return;
  interp::HostValues back = x;
  back.insert(back.end(), u.begin(), u.end());
  interp::HostValues g = in.call("main_vjp", back);
  double forward = dotProduct(u, j, 0, nr, nr);
  double reverse = dotProduct(g, v, nr, 0, np);
  EXPECT_NEAR(forward, reverse, 1e-10 * (1 + std::abs(forward)));
}

// Checks jvp against finite differences and against vjp at a few random points of
// `domain`, or at `at` when given (random directions either way). Every parameter and
// result of @main must be an f64 tensor.
inline void checkDerivatives(const std::string& text, Domain domain = {}, int points = 3, Modes modes = Modes::Both,
                             const interp::HostValues& at = {}) {
  SCOPED_TRACE(text);
  auto m = stablehlo::parseModule(text);
  Function* f = m->lookup("main");
  ASSERT_NE(f, nullptr);
  jvp(*m, *f, "main_jvp");
  if (modes != Modes::ForwardOnly) vjp(*m, *f, "main_vjp");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  std::mt19937_64 rng(42);
  const size_t np = f->numParams(), nr = f->resultTypes().size();
  for (int p = 0; p < points; ++p) {
    interp::HostValues x = at, v, u;
    for (size_t i = 0; i < np && at.empty(); ++i) x.push_back(randomLiteral(f->param(i)->type(), rng, domain));
    for (size_t i = 0; i < np; ++i) v.push_back(randomLiteral(f->param(i)->type(), rng, {-1, 1}));
    for (size_t i = 0; i < nr; ++i) u.push_back(randomLiteral(f->resultTypes()[i], rng, {-1, 1}));
    checkDerivativesAt(in, *f, x, v, u, modes);
  }
}

}  // namespace kiln::transforms::test_util

