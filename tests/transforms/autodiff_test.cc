// jvp, vjp and grad, per op and composed: jvp against central finite differences in f64
// at random points inside each function's smooth domain, and the exact consistency of
// the two modes, <u, J·v> = <Jᵀ·u, v>, for random u and v; both transformed programs
// must pass the verifier. Then compositions (grad of grad against the analytic second
// derivative, calls, a small MLP) and the errors a user can cause.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "interp/interpreter.h"
#include "ir/ops/stablehlo.h"
#include "ir/verifier.h"
#include "stablehlo/parser.h"
#include "support/error.h"
#include "transforms/autodiff.h"
#include "transforms/transform_test_util.h"
#include "transforms/vmap.h"

namespace kiln::transforms {
namespace {

using interp::HostValues;
using test_util::checkDerivatives;
using test_util::Domain;
using test_util::errorOf;
using test_util::f64;
using test_util::Modes;
using test_util::randomLiteral;

std::string unaryProgram(const std::string& op, const std::string& type = "tensor<6xf64>") {
  return "func.func @main(%x: " + type + ") -> " + type + " {\n  %0 = \"" + op + "\"(%x) : (" + type + ") -> " +
         type + "\n  return %0 : " + type + "\n}\n";
}

std::string binaryProgram(const std::string& op, const std::string& type = "tensor<6xf64>") {
  return "func.func @main(%x: " + type + ", %y: " + type + ") -> " + type + " {\n  %0 = \"" + op + "\"(%x, %y) : (" +
         type + ", " + type + ") -> " + type + "\n  return %0 : " + type + "\n}\n";
}

TEST(AutodiffTest, UnaryFunctions) {
  struct Case {
    const char* op;
    Domain domain;
  };
  for (const Case& c : std::vector<Case>{
           {"stablehlo.negate", {}},
           {"stablehlo.abs", {0.2, 2}},
           {"stablehlo.exponential", {}},
           {"stablehlo.exponential_minus_one", {}},
           {"stablehlo.log", {0.2, 3}},
           {"stablehlo.log_plus_one", {-0.5, 3}},
           {"stablehlo.logistic", {-3, 3}},
           {"stablehlo.sqrt", {0.2, 3}},
           {"stablehlo.rsqrt", {0.2, 3}},
           {"stablehlo.cbrt", {0.2, 3}},
           {"stablehlo.sine", {}},
           {"stablehlo.cosine", {}},
           {"stablehlo.tan", {-1, 1}},
           {"stablehlo.tanh", {}},
           {"stablehlo.floor", {0.1, 0.9}},
           {"stablehlo.sign", {0.1, 0.9}},
           {"chlo.acos", {-0.9, 0.9}},
           {"chlo.asin", {-0.9, 0.9}},
           {"chlo.atan", {-3, 3}},
           {"chlo.asinh", {-3, 3}},
           {"chlo.acosh", {1.2, 3}},
           {"chlo.atanh", {-0.9, 0.9}},
           {"chlo.sinh", {}},
           {"chlo.cosh", {}},
           {"chlo.tan", {-1, 1}},
           {"chlo.square", {}},
           {"chlo.erf", {}},
           {"chlo.erfc", {}},
           {"chlo.erf_inv", {-0.9, 0.9}},
           {"chlo.lgamma", {0.5, 3}},
           // No rule of their own: differentiated through their decompositions.
           {"chlo.digamma", {0.5, 3}},
           {"chlo.bessel_i1e", {0.2, 3}},
       }) {
    SCOPED_TRACE(c.op);
    checkDerivatives(unaryProgram(c.op), c.domain);
  }
}

TEST(AutodiffTest, BinaryArithmetic) {
  for (const char* op : {"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.maximum",
                         "stablehlo.minimum", "stablehlo.atan2"}) {
    SCOPED_TRACE(op);
    checkDerivatives(binaryProgram(op));
  }
  // Positive operands keep division, powers and remainders smooth.
  for (const char* op : {"stablehlo.divide", "stablehlo.power"}) {
    SCOPED_TRACE(op);
    checkDerivatives(binaryProgram(op), {0.5, 2});
  }
  // x in (0.5, 3), y = 1.9 + 0.2·(x - 0.5)/(2.5): x/y stays off integers.
  checkDerivatives(R"(
    func.func @main(%x: tensor<6xf64>) -> tensor<6xf64> {
      %c = stablehlo.constant dense<1.3> : tensor<6xf64>
      %y = stablehlo.add %x, %c : tensor<6xf64>
      %r = stablehlo.remainder %y, %c : tensor<6xf64>
      %s = stablehlo.remainder %c, %y : tensor<6xf64>
      %t = stablehlo.add %r, %s : tensor<6xf64>
      return %t : tensor<6xf64>
    })",
                   {0.1, 1.0});
}

TEST(AutodiffTest, SelectClampAndConvert) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<6xf64>, %y: tensor<6xf64>) -> tensor<6xf64> {
      %p = stablehlo.compare GT, %x, %y : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xi1>
      %m = stablehlo.multiply %x, %y : tensor<6xf64>
      %s = stablehlo.select %p, %m, %y : tensor<6xi1>, tensor<6xf64>
      return %s : tensor<6xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%lo: tensor<f64>, %x: tensor<6xf64>, %hi: tensor<f64>) -> tensor<6xf64> {
      %c = stablehlo.clamp %lo, %x, %hi : (tensor<f64>, tensor<6xf64>, tensor<f64>) -> tensor<6xf64>
      return %c : tensor<6xf64>
    })");
  // Integers in the middle have no tangent; f64 -> f64 converts carry it.
  checkDerivatives(R"(
    func.func @main(%x: tensor<6xf64>) -> tensor<6xf64> {
      %i = stablehlo.convert %x : (tensor<6xf64>) -> tensor<6xi32>
      %f = stablehlo.convert %i : (tensor<6xi32>) -> tensor<6xf64>
      %s = stablehlo.multiply %f, %x : tensor<6xf64>
      return %s : tensor<6xf64>
    })",
                   {0.1, 3});
}

TEST(AutodiffTest, DataMovement) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<2x3xf64>, %y: tensor<3xf64>) -> (tensor<4x3x2xf64>, tensor<6xf64>) {
      %b = stablehlo.broadcast_in_dim %x, dims = [2, 1] : (tensor<2x3xf64>) -> tensor<4x3x2xf64>
      %e = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<3xf64>) -> tensor<4x3x2xf64>
      %s = stablehlo.multiply %b, %e : tensor<4x3x2xf64>
      %r = stablehlo.reshape %x : (tensor<2x3xf64>) -> tensor<6xf64>
      %v = stablehlo.reverse %r, dims = [0] : tensor<6xf64>
      return %s, %v : tensor<4x3x2xf64>, tensor<6xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%x: tensor<4x5xf64>, %y: tensor<2x5xf64>) -> (tensor<2x3xf64>, tensor<5x4xf64>, tensor<6x5xf64>) {
      %s = stablehlo.slice %x [1:4:2, 0:5:2] : (tensor<4x5xf64>) -> tensor<2x3xf64>
      %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x5xf64>) -> tensor<5x4xf64>
      %c = stablehlo.concatenate %x, %y, dim = 0 : (tensor<4x5xf64>, tensor<2x5xf64>) -> tensor<6x5xf64>
      return %s, %t, %c : tensor<2x3xf64>, tensor<5x4xf64>, tensor<6x5xf64>
    })");
  // Edge padding that cuts (negative) and adds, interior padding, a padding value that
  // is itself differentiated.
  checkDerivatives(R"(
    func.func @main(%x: tensor<4x3xf64>, %v: tensor<f64>) -> tensor<8x6xf64> {
      %p = stablehlo.pad %x, %v, low = [-1, 2], high = [2, -1], interior = [1, 1] : (tensor<4x3xf64>, tensor<f64>) -> tensor<8x6xf64>
      return %p : tensor<8x6xf64>
    })");
}

TEST(AutodiffTest, DynamicSlicesAndGather) {
  // Starts past the end are clamped alike by both ops and by the transposes.
  checkDerivatives(R"(
    func.func @main(%x: tensor<5x4xf64>, %u: tensor<2x2xf64>) -> (tensor<2x3xf64>, tensor<5x4xf64>) {
      %i = stablehlo.constant dense<4> : tensor<i64>
      %j = stablehlo.constant dense<1> : tensor<i64>
      %s = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 3] : (tensor<5x4xf64>, tensor<i64>, tensor<i64>) -> tensor<2x3xf64>
      %d = stablehlo.dynamic_update_slice %x, %u, %j, %i : (tensor<5x4xf64>, tensor<2x2xf64>, tensor<i64>, tensor<i64>) -> tensor<5x4xf64>
      return %s, %d : tensor<2x3xf64>, tensor<5x4xf64>
    })");
  // An embedding lookup with a repeated row and an index past the end (gather clamps it).
  checkDerivatives(R"(
    func.func @main(%table: tensor<5x3xf64>) -> tensor<4x3xf64> {
      %ids = stablehlo.constant dense<[[1], [3], [1], [9]]> : tensor<4x1xi32>
      %g = "stablehlo.gather"(%table, %ids) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<5x3xf64>, tensor<4x1xi32>) -> tensor<4x3xf64>
      return %g : tensor<4x3xf64>
    })");
}

// Scatters that add and that replace, with a repeated index and one past the end (its
// update is dropped); the gradient of an embedding lookup is such a scatter-add.
TEST(AutodiffTest, Scatters) {
  for (const char* body : {"stablehlo.add %a, %b : tensor<f64>", ""}) {
    std::string combine = *body ? std::string("%r = ") + body + "\n        stablehlo.return %r : tensor<f64>"
                                : std::string("stablehlo.return %b : tensor<f64>");
    checkDerivatives(std::string(R"(
    func.func @main(%x: tensor<5x3xf64>, %u: tensor<4x3xf64>) -> tensor<5x3xf64> {
      %ids = stablehlo.constant dense<[[1], [3], [1], [7]]> : tensor<4x1xi32>
      %s = "stablehlo.scatter"(%x, %ids, %u) ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        )") + combine + R"(
      }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5x3xf64>, tensor<4x1xi32>, tensor<4x3xf64>) -> tensor<5x3xf64>
      return %s : tensor<5x3xf64>
    })");
  }
}

// A scatter that multiplies, with indices that repeat (JAX requires unique ones): at
// random points, and at a point where updates are zero, one alone on its element and
// two together on another (the function is multilinear in the updates, so central
// differences are exact there too).
TEST(AutodiffTest, ScatterThatMultiplies) {
  const std::string program = R"(
    func.func @main(%x: tensor<4x2xf64>, %u: tensor<6x2xf64>) -> tensor<4x2xf64> {
      %ids = stablehlo.constant dense<[[0], [0], [1], [1], [1], [9]]> : tensor<6x1xi32>
      %s = "stablehlo.scatter"(%x, %ids, %u) ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %r = stablehlo.multiply %a, %b : tensor<f64>
        stablehlo.return %r : tensor<f64>
      }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x2xf64>, tensor<6x1xi32>, tensor<6x2xf64>) -> tensor<4x2xf64>
      return %s : tensor<4x2xf64>
    })";
  checkDerivatives(program);
  std::mt19937_64 rng(5);
  Literal x = randomLiteral(Type::tensor(DType::F64, {4, 2}), rng, {});
  Literal u(Type::tensor(DType::F64, {6, 2}));
  // Element (0, 0) meets one zero, (1, 0) one among three, (1, 1) two; row 5 is dropped.
  const double values[] = {0, 1.5, 2, -0.5, 0, 0, 0.75, 3, -1.25, 0, 4, 0};
  for (int64_t i = 0; i < 12; ++i) u.setFloat(i, values[i]);
  checkDerivatives(program, {}, 2, Modes::Both, {x, u});
}

TEST(AutodiffTest, OpsThroughTheirStableHloDecompositions) {
  checkDerivatives(test_util::kOpsThroughStableHloDecompositions);
}

TEST(AutodiffTest, Dots) {
  // Batch dimensions in different positions, two contracting dimensions in swapped order,
  // free dimensions on both sides.
  checkDerivatives(R"(
    func.func @main(%x: tensor<2x3x4x5xf64>, %y: tensor<4x6x2x3xf64>) -> tensor<2x5x6xf64> {
      %d = stablehlo.dot_general %x, %y, batching_dims = [0] x [2], contracting_dims = [2, 1] x [0, 3] : (tensor<2x3x4x5xf64>, tensor<4x6x2x3xf64>) -> tensor<2x5x6xf64>
      return %d : tensor<2x5x6xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%x: tensor<3x4xf64>, %y: tensor<4xf64>) -> tensor<3xf64> {
      %d = stablehlo.dot %x, %y : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3xf64>
      return %d : tensor<3xf64>
    })");
}

// Convolutions: NCHW with strides, padding (one side negative), lhs and rhs dilation;
// NHWC depthwise (feature groups); a weight-gradient-like batch group count.
TEST(AutodiffTest, Convolutions) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<2x3x7x6xf64>, %k: tensor<4x3x3x2xf64>) -> tensor<2x4x7x3xf64> {
      %c = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 1], pad = [[1, 2], [0, -1]], lhs_dilate = [2, 1], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x7x6xf64>, tensor<4x3x3x2xf64>) -> tensor<2x4x7x3xf64>
      return %c : tensor<2x4x7x3xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%x: tensor<1x5x5x4xf64>, %k: tensor<3x3x1x8xf64>) -> tensor<1x5x5x8xf64> {
      %c = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<1x5x5x4xf64>, tensor<3x3x1x8xf64>) -> tensor<1x5x5x8xf64>
      return %c : tensor<1x5x5x8xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%x: tensor<4x2x5xf64>, %k: tensor<4x2x3xf64>) -> tensor<1x4x3xf64> {
      %c = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1]} {batch_group_count = 4 : i64, feature_group_count = 1 : i64} : (tensor<4x2x5xf64>, tensor<4x2x3xf64>) -> tensor<1x4x3xf64>
      return %c : tensor<1x4x3xf64>
    })");
}

// Sum pooling with strides, padding and dilations; max and min pooling (ties are
// improbable at random points); select_and_scatter, the gradient of max pooling.
TEST(AutodiffTest, WindowedReductions) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<2x7x6xf64>) -> tensor<2x4x4xf64> {
      %zero = stablehlo.constant dense<0.0> : tensor<f64>
      %s = "stablehlo.reduce_window"(%x, %zero) ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %r = stablehlo.add %a, %b : tensor<f64>
        stablehlo.return %r : tensor<f64>
      }) {window_dimensions = array<i64: 1, 3, 2>, window_strides = array<i64: 1, 2, 1>, base_dilations = array<i64: 1, 1, 2>, window_dilations = array<i64: 1, 1, 2>, padding = dense<[[0, 0], [1, 1], [0, -5]]> : tensor<3x2xi64>} : (tensor<2x7x6xf64>, tensor<f64>) -> tensor<2x4x4xf64>
      return %s : tensor<2x4x4xf64>
    })");
  for (const char* op : {"stablehlo.maximum", "stablehlo.minimum"}) {
    std::string init = std::string(op) == "stablehlo.maximum" ? "0xFFF0000000000000" : "0x7FF0000000000000";
    checkDerivatives(std::string(R"(
    func.func @main(%x: tensor<1x6x6x2xf64>) -> tensor<1x3x3x2xf64> {
      %init = stablehlo.constant dense<)") + init + R"(> : tensor<f64>
      %s = "stablehlo.reduce_window"(%x, %init) ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %r = )" + op + R"( %a, %b : tensor<f64>
        stablehlo.return %r : tensor<f64>
      }) {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, padding = dense<[[0, 0], [1, 0], [1, 0], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x6x6x2xf64>, tensor<f64>) -> tensor<1x3x3x2xf64>
      return %s : tensor<1x3x3x2xf64>
    })");
    // The init a parameter (as lifting constants makes it): it wins some windows, and the
    // padding (which holds it) others.
    checkDerivatives(std::string(R"(
    func.func @main(%x: tensor<6x5xf64>, %init: tensor<f64>) -> tensor<3x3xf64> {
      %s = "stablehlo.reduce_window"(%x, %init) ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %r = )") + op + R"( %a, %b : tensor<f64>
        stablehlo.return %r : tensor<f64>
      }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, padding = dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>} : (tensor<6x5xf64>, tensor<f64>) -> tensor<3x3xf64>
      return %s : tensor<3x3xf64>
    })");
  }
  // Windowed products (cumprod, as JAX lowers it on CPU) with padding, the init a value:
  // at random points, and where windows hold one zero, two zeros, or none.
  const std::string product = R"(
    func.func @main(%x: tensor<2x6xf64>, %init: tensor<f64>) -> tensor<2x6xf64> {
      %s = "stablehlo.reduce_window"(%x, %init) ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %r = stablehlo.multiply %a, %b : tensor<f64>
        stablehlo.return %r : tensor<f64>
      }) {window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>, padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>} : (tensor<2x6xf64>, tensor<f64>) -> tensor<2x6xf64>
      return %s : tensor<2x6xf64>
    })";
  checkDerivatives(product);
  Literal x(Type::tensor(DType::F64, {2, 6}));
  const double values[] = {1.5, 0, -0.5, 2, 0, 0, 0.75, -1.25, 0, 1.1, 0.9, 0};
  for (int64_t i = 0; i < 12; ++i) x.setFloat(i, values[i]);
  checkDerivatives(product, {}, 2, Modes::Both, {x, f64(0.8)});
  checkDerivatives(R"(
    func.func @main(%x: tensor<4x6xf64>, %g: tensor<2x3xf64>) -> tensor<4x6xf64> {
      %zero = stablehlo.constant dense<0.0> : tensor<f64>
      %s = "stablehlo.select_and_scatter"(%x, %g, %zero) ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %c = stablehlo.compare GE, %a, %b : (tensor<f64>, tensor<f64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }, {
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %r = stablehlo.add %a, %b : tensor<f64>
        stablehlo.return %r : tensor<f64>
      }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf64>, tensor<2x3xf64>, tensor<f64>) -> tensor<4x6xf64>
      return %s : tensor<4x6xf64>
    })");
}

TEST(AutodiffTest, Reductions) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<3x4x5xf64>, %i: tensor<f64>) -> (tensor<4xf64>, tensor<3x5xf64>, tensor<3x5xf64>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f64>
      %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
      %s = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [0, 2] : (tensor<3x4x5xf64>, tensor<f64>) -> tensor<4xf64>
      %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<3x4x5xf64>, tensor<f64>) -> tensor<3x5xf64>
      %n = stablehlo.reduce(%x init: %zero) applies stablehlo.minimum across dimensions = [1] : (tensor<3x4x5xf64>, tensor<f64>) -> tensor<3x5xf64>
      return %s, %m, %n : tensor<4xf64>, tensor<3x5xf64>, tensor<3x5xf64>
    })",
                   {0.1, 2});
}

// Products (with the init differentiated), argmax and argmin's values (a variadic reduce
// whose body selects a side), a variadic reduce of independent inputs, and a max written
// as a select.
TEST(AutodiffTest, ProductsAndSelectingReductions) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<3x4x5xf64>, %i: tensor<f64>) -> (tensor<4xf64>, tensor<3x5xf64>) {
      %one = stablehlo.constant dense<1.0> : tensor<f64>
      %p = stablehlo.reduce(%x init: %i) applies stablehlo.multiply across dimensions = [2, 0] : (tensor<3x4x5xf64>, tensor<f64>) -> tensor<4xf64>
      %q = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<3x4x5xf64>, tensor<f64>) -> tensor<3x5xf64>
      return %p, %q : tensor<4xf64>, tensor<3x5xf64>
    })",
                   {0.5, 1.5});
  for (const char* dir : {"GT", "LT"}) {
    std::string init = std::string(dir) == "GT" ? "0xFFF0000000000000" : "0x7FF0000000000000";
    checkDerivatives(std::string(R"(
    func.func @main(%x: tensor<4x5xf64>) -> tensor<4xf64> {
      %ninf = stablehlo.constant dense<)") + init + R"(> : tensor<f64>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %iota = stablehlo.iota dim = 1 : tensor<4x5xi32>
      %r:2 = stablehlo.reduce(%x init: %ninf), (%iota init: %zero) across dimensions = [1] : (tensor<4x5xf64>, tensor<4x5xi32>, tensor<f64>, tensor<i32>) -> (tensor<4xf64>, tensor<4xi32>)
       reducer(%a: tensor<f64>, %b: tensor<f64>) (%i: tensor<i32>, %j: tensor<i32>)  {
        %gt = stablehlo.compare )" + dir + R"(, %a, %b,  FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
        %nan = stablehlo.compare  NE, %a, %a,  FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
        %pick = stablehlo.or %gt, %nan : tensor<i1>
        %eq = stablehlo.compare  EQ, %a, %b,  FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
        %lt = stablehlo.compare  LT, %i, %j,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %tie = stablehlo.and %eq, %lt : tensor<i1>
        %first = stablehlo.or %pick, %tie : tensor<i1>
        %v = stablehlo.select %pick, %a, %b : tensor<i1>, tensor<f64>
        %k = stablehlo.select %first, %i, %j : tensor<i1>, tensor<i32>
        stablehlo.return %v, %k : tensor<f64>, tensor<i32>
      }
      return %r#0 : tensor<4xf64>
    })");
  }
  // A variadic reduce that reduces each input by its own op (a sum and a max).
  checkDerivatives(R"(
    func.func @main(%x: tensor<4x5xf64>, %y: tensor<4x5xf64>) -> (tensor<5xf64>, tensor<5xf64>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f64>
      %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
      %r:2 = stablehlo.reduce(%x init: %zero), (%y init: %ninf) across dimensions = [0] : (tensor<4x5xf64>, tensor<4x5xf64>, tensor<f64>, tensor<f64>) -> (tensor<5xf64>, tensor<5xf64>)
       reducer(%a: tensor<f64>, %b: tensor<f64>) (%c: tensor<f64>, %d: tensor<f64>)  {
        %s = stablehlo.add %a, %b : tensor<f64>
        %m = stablehlo.maximum %d, %c : tensor<f64>
        stablehlo.return %s, %m : tensor<f64>, tensor<f64>
      }
      return %r#0, %r#1 : tensor<5xf64>, tensor<5xf64>
    })");
  // Over two dimensions, the selected side second, an init that is differentiated (and
  // shifted up so that it often wins).
  checkDerivatives(R"(
    func.func @main(%x: tensor<3x4x2xf64>, %i: tensor<f64>) -> tensor<4xf64> {
      %c = stablehlo.constant dense<1.5> : tensor<f64>
      %init = stablehlo.add %i, %c : tensor<f64>
      %r = stablehlo.reduce(%x init: %init) across dimensions = [0, 2] : (tensor<3x4x2xf64>, tensor<f64>) -> tensor<4xf64>
       reducer(%a: tensor<f64>, %b: tensor<f64>)  {
        %le = stablehlo.compare  LE, %a, %b,  FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
        %v = stablehlo.select %le, %b, %a : tensor<i1>, tensor<f64>
        stablehlo.return %v : tensor<f64>
      }
      return %r : tensor<4xf64>
    })");
}

// The product's tangent takes no quotients: at a zero element it is the product of the
// others, where y/x would be 0/0.
TEST(AutodiffTest, ProductsAtZero) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<3xf64>) -> tensor<f64> {
      %one = stablehlo.constant dense<1.0> : tensor<f64>
      %p = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
      return %p : tensor<f64>
    })");
  jvp(*m, *m->lookup("main"), "main_jvp");
  Function& g = grad(*m, *m->lookup("main"), {}, "main_grad");
  Literal x(Type::tensor(DType::F64, {3})), v(Type::tensor(DType::F64, {3}));
  for (int64_t i = 0; i < 3; ++i) {
    x.setFloat(i, i == 0 ? 0.0 : i + 1.0);  // 0, 2, 3
    v.setFloat(i, i == 0 ? 1.0 : 0.0);
  }
  interp::Interpreter in(*m);
  EXPECT_EQ(in.call("main_jvp", HostValues{x, v})[1].tensor().floatAt(0), 6.0);
  Literal d = in.call(g.name(), HostValues{x})[0].tensor();
  EXPECT_EQ(d.floatAt(0), 6.0);
  EXPECT_EQ(d.floatAt(1), 0.0);
  EXPECT_EQ(d.floatAt(2), 0.0);
}

// Sort along either dimension: the float operands' tangents follow the permutation; an
// integer operand rides along without one.
// The batch-norm ops differentiate through the spec's decompositions: inference, training
// (its mean and variance are functions of the operand too) and grad (itself a gradient:
// its derivative is a second derivative). Positive inputs keep the variances positive.
TEST(AutodiffTest, BatchNorm) {
  const Domain positive{0.5, 2};
  checkDerivatives(R"(
    func.func @main(%x: tensor<2x3x4xf64>, %scale: tensor<3xf64>, %offset: tensor<3xf64>, %mean: tensor<3xf64>, %var: tensor<3xf64>) -> tensor<2x3x4xf64> {
      %y = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3x4xf64>
      return %y : tensor<2x3x4xf64>
    })", positive);
  checkDerivatives(R"(
    func.func @main(%x: tensor<4x2x3xf64>, %scale: tensor<3xf64>, %offset: tensor<3xf64>) -> (tensor<4x2x3xf64>, tensor<3xf64>, tensor<3xf64>) {
      %y:3 = "stablehlo.batch_norm_training"(%x, %scale, %offset) {epsilon = 1.0e-3 : f32, feature_index = 2 : i64} : (tensor<4x2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<4x2x3xf64>, tensor<3xf64>, tensor<3xf64>)
      return %y#0, %y#1, %y#2 : tensor<4x2x3xf64>, tensor<3xf64>, tensor<3xf64>
    })", positive);
  checkDerivatives(R"(
    func.func @main(%x: tensor<3x2xf64>, %scale: tensor<2xf64>, %mean: tensor<2xf64>, %var: tensor<2xf64>, %dy: tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<2xf64>, tensor<2xf64>) {
      %g:3 = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %dy) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<3x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<2xf64>, tensor<2xf64>)
      return %g#0, %g#1, %g#2 : tensor<3x2xf64>, tensor<2xf64>, tensor<2xf64>
    })", positive);
}

// A reduce_window whose body has no rule of its own differentiates through the fold of
// its body over the window's positions: cumlogsumexp as JAX lowers it on CPU (a window
// covering the prefix; padded here with -1000, as -inf - -inf is NaN in this body), and a windowed argmax over two inputs (value,
// position) whose body keeps the larger pair — the position is an integer with no
// tangent, the value routes its tangent.
TEST(AutodiffTest, WindowedReductionsOfOtherBodies) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<2x5xf64>) -> tensor<2x5xf64> {
      %low = stablehlo.constant dense<-1.0e+03> : tensor<f64>
      %s = "stablehlo.reduce_window"(%x, %low) ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %m = stablehlo.maximum %a, %b : tensor<f64>
        %d = stablehlo.subtract %a, %b : tensor<f64>
        %ad = stablehlo.abs %d : tensor<f64>
        %n = stablehlo.negate %ad : tensor<f64>
        %e = stablehlo.exponential %n : tensor<f64>
        %l = stablehlo.log_plus_one %e : tensor<f64>
        %r = stablehlo.add %m, %l : tensor<f64>
        stablehlo.return %r : tensor<f64>
      }) {window_dimensions = array<i64: 1, 5>, padding = dense<[[0, 0], [4, 0]]> : tensor<2x2xi64>} : (tensor<2x5xf64>, tensor<f64>) -> tensor<2x5xf64>
      return %s : tensor<2x5xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%x: tensor<6x4xf64>) -> tensor<3x3xf64> {
      %i = stablehlo.iota dim = 0 : tensor<6x4xi32>
      %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %v, %p = "stablehlo.reduce_window"(%x, %i, %ninf, %zero) ({
      ^bb0(%a: tensor<f64>, %ai: tensor<i32>, %b: tensor<f64>, %bi: tensor<i32>):
        %keep = stablehlo.compare GE, %a, %b : (tensor<f64>, tensor<f64>) -> tensor<i1>
        %v1 = stablehlo.select %keep, %a, %b : tensor<i1>, tensor<f64>
        %i1 = stablehlo.select %keep, %ai, %bi : tensor<i1>, tensor<i32>
        stablehlo.return %v1, %i1 : tensor<f64>, tensor<i32>
      }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 1>} : (tensor<6x4xf64>, tensor<6x4xi32>, tensor<f64>, tensor<i32>) -> (tensor<3x3xf64>, tensor<3x3xi32>)
      return %v : tensor<3x3xf64>
    })");
}

// map differentiates through its computation applied to whole tensors.
TEST(AutodiffTest, Map) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> tensor<2x3xf64> {
      %m = "stablehlo.map"(%x, %y) ({
        ^bb0(%a: tensor<f64>, %b: tensor<f64>):
          %two = stablehlo.constant dense<2.0> : tensor<f64>
          %p = stablehlo.multiply %a, %b : tensor<f64>
          %s = stablehlo.sine %a : tensor<f64>
          %t = stablehlo.multiply %s, %two : tensor<f64>
          %r = stablehlo.add %p, %t : tensor<f64>
          stablehlo.return %r : tensor<f64>
      }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
      return %m : tensor<2x3xf64>
    })");
}

TEST(AutodiffTest, Sorts) {
  for (const char* dim : {"0", "1"}) {
    checkDerivatives(std::string(R"(
    func.func @main(%x: tensor<3x5xf64>, %y: tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<3x5xf64>) {
      %i = stablehlo.iota dim = 0 : tensor<3x5xi32>
      %s:3 = "stablehlo.sort"(%x, %i, %y) ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>, %c: tensor<i32>, %d: tensor<i32>, %e: tensor<f64>, %f: tensor<f64>):
        %lt = stablehlo.compare LT, %a, %b : (tensor<f64>, tensor<f64>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      }) {dimension = )") + dim + R"( : i64, is_stable = true} : (tensor<3x5xf64>, tensor<3x5xi32>, tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<3x5xi32>, tensor<3x5xf64>)
      return %s#0, %s#2 : tensor<3x5xf64>, tensor<3x5xf64>
    })");
  }
}

// Linear algebra solves: triangular_solve on either side, from either triangle, with
// every transpose kind and a unit diagonal, in b and in a (a kept well conditioned by a
// large diagonal; the triangle it does not read still gets random values); cholesky of
// matrices whose read triangle stands for a positive definite one, lower and upper, real
// and complex.
TEST(AutodiffTest, TriangularSolveAndCholesky) {
  struct Case {
    bool left, lower, unit;
    const char* transpose;
  };
  for (const Case& c : std::vector<Case>{{true, true, false, "NO_TRANSPOSE"},
                                         {true, false, false, "TRANSPOSE"},
                                         {false, true, false, "ADJOINT"},
                                         {false, false, true, "NO_TRANSPOSE"},
                                         {true, false, true, "ADJOINT"},
                                         {false, true, false, "TRANSPOSE"}}) {
    std::string b = c.left ? "tensor<2x4x3xf64>" : "tensor<2x3x4xf64>";
    checkDerivatives(std::string(R"(
    func.func @main(%m: tensor<2x4x4xf64>, %b: )") + b + ") -> " + b + R"( {
      %d = stablehlo.constant dense<[[4.0, 0.0, 0.0, 0.0], [0.0, 4.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0], [0.0, 0.0, 0.0, 4.0]]> : tensor<4x4xf64>
      %db = stablehlo.broadcast_in_dim %d, dims = [1, 2] : (tensor<4x4xf64>) -> tensor<2x4x4xf64>
      %a = stablehlo.add %m, %db : tensor<2x4x4xf64>
      %x = "stablehlo.triangular_solve"(%a, %b) {left_side = )" + (c.left ? "true" : "false") +
                         ", lower = " + (c.lower ? "true" : "false") + ", unit_diagonal = " +
                         (c.unit ? "true" : "false") + ", transpose_a = #stablehlo<transpose " + c.transpose +
                         ">} : (tensor<2x4x4xf64>, " + b + ") -> " + b + R"(
      return %x : )" + b + R"(
    })",
                     {-1, 1});
  }
  // Complex: ADJOINT conjugates a, in the tangent of a and in the transpose.
  for (const char* transpose : {"ADJOINT", "TRANSPOSE"}) {
    checkDerivatives(std::string(R"(
    func.func @main(%m: tensor<3x3xf64>, %n: tensor<3x3xf64>, %p: tensor<3x2xf64>, %q: tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x2xf64>) {
      %d = stablehlo.constant dense<[[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]]> : tensor<3x3xf64>
      %r = stablehlo.add %m, %d : tensor<3x3xf64>
      %a = stablehlo.complex %r, %n : tensor<3x3xcomplex<f64>>
      %b = stablehlo.complex %p, %q : tensor<3x2xcomplex<f64>>
      %x = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose )") +
                     transpose + R"(>} : (tensor<3x3xcomplex<f64>>, tensor<3x2xcomplex<f64>>) -> tensor<3x2xcomplex<f64>>
      %xr = stablehlo.real %x : (tensor<3x2xcomplex<f64>>) -> tensor<3x2xf64>
      %xi = stablehlo.imag %x : (tensor<3x2xcomplex<f64>>) -> tensor<3x2xf64>
      return %xr, %xi : tensor<3x2xf64>, tensor<3x2xf64>
    })",
                     {-1, 1});
  }
  for (const char* lower : {"true", "false"}) {
    checkDerivatives(std::string(R"(
    func.func @main(%m: tensor<3x3xf64>) -> tensor<3x3xf64> {
      %d = stablehlo.constant dense<[[6.0, 0.0, 0.0], [0.0, 6.0, 0.0], [0.0, 0.0, 6.0]]> : tensor<3x3xf64>
      %a = stablehlo.add %m, %d : tensor<3x3xf64>
      %l = stablehlo.cholesky %a, lower = )") + lower + R"( : tensor<3x3xf64>
      return %l : tensor<3x3xf64>
    })",
                     {-1, 1});
    checkDerivatives(std::string(R"(
    func.func @main(%p: tensor<3x3xf64>, %q: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>) {
      %d = stablehlo.constant dense<[[6.0, 0.0, 0.0], [0.0, 6.0, 0.0], [0.0, 0.0, 6.0]]> : tensor<3x3xf64>
      %r = stablehlo.add %p, %d : tensor<3x3xf64>
      %a = stablehlo.complex %r, %q : tensor<3x3xcomplex<f64>>
      %l = stablehlo.cholesky %a, lower = )") + lower + R"( : tensor<3x3xcomplex<f64>>
      %lr = stablehlo.real %l : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xf64>
      %li = stablehlo.imag %l : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xf64>
      return %lr, %li : tensor<3x3xf64>, tensor<3x3xf64>
    })",
                     {-1, 1});
  }
}

// Every fft type, over one and over two dimensions, with even and odd lengths (IRFFT's
// transpose doubles all but the first coefficient and, for even lengths, the last).
// jaxlib's LAPACK custom calls: potrf (the factor in one triangle, the other left as
// the input's: both tangents checked), trsm (with and without alpha, transposed and on
// the right side), syevd (eigenvalues, and the squares of the eigenvectors, which do
// not depend on the sign LAPACK gives each vector; batched), getrf, gtsv, gesdd (with
// and without vectors), geqrf and orgqr. Other routines are refused by their target.
TEST(AutodiffTest, LapackCustomCalls) {
  for (const char* uplo : {"76", "85"}) {  // 'L', 'U'
    checkDerivatives(std::string(R"(
    func.func @main(%m: tensor<3x3xf64>) -> tensor<3x3xf64> {
      %d = stablehlo.constant dense<[[6.0, 0.0, 0.0], [0.0, 6.0, 0.0], [0.0, 0.0, 6.0]]> : tensor<3x3xf64>
      %a = stablehlo.add %m, %d : tensor<3x3xf64>
      %r:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%a) {mhlo.backend_config = {uplo = )") + uplo + R"( : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i32>)
      return %r#0 : tensor<3x3xf64>
    })",
                     {-1, 1});
  }
  checkDerivatives(R"(
    func.func @main(%m: tensor<4x4xf64>, %b: tensor<3x4xf64>) -> tensor<3x4xf64> {
      %d = stablehlo.constant dense<[[4.0, 0.0, 0.0, 0.0], [0.0, 4.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0], [0.0, 0.0, 0.0, 4.0]]> : tensor<4x4xf64>
      %a = stablehlo.add %m, %d : tensor<4x4xf64>
      %x = stablehlo.custom_call @lapack_dtrsm_ffi(%a, %b) {mhlo.backend_config = {diag = 78 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
      return %x : tensor<3x4xf64>
    })",
                   {-1, 1});
  checkDerivatives(R"(
    func.func @main(%m: tensor<3x3xf64>, %b: tensor<3x2xf64>, %alpha: tensor<f64>) -> tensor<3x2xf64> {
      %d = stablehlo.constant dense<[[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]]> : tensor<3x3xf64>
      %a = stablehlo.add %m, %d : tensor<3x3xf64>
      %x = stablehlo.custom_call @lapack_dtrsm_ffi(%a, %b, %alpha) {mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<3x3xf64>, tensor<3x2xf64>, tensor<f64>) -> tensor<3x2xf64>
      return %x : tensor<3x2xf64>
    })",
                   {-1, 1});
  checkDerivatives(R"(
    func.func @main(%m: tensor<2x3x3xf64>) -> (tensor<2x3xf64>, tensor<2x3x3xf64>) {
      %a = stablehlo.transpose %m, dims = [0, 2, 1] : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
      %s = stablehlo.add %m, %a : tensor<2x3x3xf64>
      %r:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%s) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x3x3xf64>) -> (tensor<2x3x3xf64>, tensor<2x3xf64>, tensor<2xi32>)
      %v2 = stablehlo.multiply %r#0, %r#0 : tensor<2x3x3xf64>
      return %r#1, %v2 : tensor<2x3xf64>, tensor<2x3x3xf64>
    })",
                   {-1, 1});
  // LU with pivoting (random matrices pivot at random), batched.
  checkDerivatives(R"(
    func.func @main(%a: tensor<2x4x4xf64>) -> tensor<2x4x4xf64> {
      %r:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4x4xf64>) -> (tensor<2x4x4xf64>, tensor<2x4xi32>, tensor<2xi32>)
      return %r#0 : tensor<2x4x4xf64>
    })");
  // Tall and wide (L and U padded by the identity, as JAX does).
  checkDerivatives(R"(
    func.func @main(%a: tensor<5x3xf64>) -> tensor<5x3xf64> {
      %r:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xi32>, tensor<i32>)
      return %r#0 : tensor<5x3xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%a: tensor<2x3x5xf64>) -> tensor<2x3x5xf64> {
      %r:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x3x5xf64>) -> (tensor<2x3x5xf64>, tensor<2x3xi32>, tensor<2xi32>)
      return %r#0 : tensor<2x3x5xf64>
    })");
  // Tridiagonal solves (dl[0] and the last du unused), batched; reverse mode transposes
  // the tangent's solve by a solve with the transposed diagonals.
  checkDerivatives(R"(
    func.func @main(%dl: tensor<2x4xf64>, %d: tensor<2x4xf64>, %du: tensor<2x4xf64>, %b: tensor<2x4x3xf64>) -> tensor<2x4x3xf64> {
      %five = stablehlo.constant dense<5.0> : tensor<2x4xf64>
      %dd = stablehlo.add %d, %five : tensor<2x4xf64>
      %r:5 = stablehlo.custom_call @lapack_dgtsv_ffi(%dl, %dd, %du, %b) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4x3xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4x3xf64>, tensor<2xi32>)
      return %r#3 : tensor<2x4x3xf64>
    })",
                   {-1, 1});
  auto factorization = stablehlo::parseModule(R"(
    func.func @main(%dl: tensor<3xf64>, %d: tensor<3xf64>, %du: tensor<3xf64>, %b: tensor<3x1xf64>) -> tensor<3xf64> {
      %r:5 = stablehlo.custom_call @lapack_dgtsv_ffi(%dl, %d, %du, %b) {mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3x1xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3x1xf64>, tensor<i32>)
      return %r#1 : tensor<3xf64>
    })");
  EXPECT_EQ(errorOf([&] { jvp(*factorization, *factorization->lookup("main"), "j"); }),
            "unsupported: unsupported: jvp of stablehlo.custom_call @lapack_dgtsv_ffi (a use of the factorization "
            "gtsv returns, line 3)");
  // SVD with reduced vectors of square, tall and wide matrices: the singular values and
  // the squares of U and Vᴴ (signs LAPACK chooses per pair of vectors cancel).
  checkDerivatives(R"(
    func.func @main(%a: tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>) {
      %r:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<i32>)
      %u2 = stablehlo.multiply %r#2, %r#2 : tensor<3x3xf64>
      %v2 = stablehlo.multiply %r#3, %r#3 : tensor<3x3xf64>
      return %r#1, %u2, %v2 : tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%a: tensor<4x3xf64>) -> (tensor<3xf64>, tensor<4x3xf64>, tensor<3x3xf64>) {
      %r:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xf64>, tensor<4x3xf64>, tensor<3x3xf64>, tensor<i32>)
      %u2 = stablehlo.multiply %r#2, %r#2 : tensor<4x3xf64>
      %v2 = stablehlo.multiply %r#3, %r#3 : tensor<3x3xf64>
      return %r#1, %u2, %v2 : tensor<3xf64>, tensor<4x3xf64>, tensor<3x3xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%a: tensor<3x5xf64>) -> (tensor<3xf64>, tensor<3x3xf64>, tensor<3x5xf64>) {
      %r:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<3x5xf64>, tensor<i32>)
      %u2 = stablehlo.multiply %r#2, %r#2 : tensor<3x3xf64>
      %v2 = stablehlo.multiply %r#3, %r#3 : tensor<3x5xf64>
      return %r#1, %u2, %v2 : tensor<3xf64>, tensor<3x3xf64>, tensor<3x5xf64>
    })");
  // Singular values alone (mode 'N', the vectors declared reduced or full; tall, wide
  // and batched) and eigenvalues alone (syevd mode 'N'): the rules compute the vectors
  // with a second call.
  for (const char* shapes : {"tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xf64>, tensor<4x3xf64>, tensor<3x3xf64>",
                             "tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<5x5xf64>"}) {
    const std::string in = std::string(shapes).substr(0, 15);
    checkDerivatives("func.func @main(%a: " + in + ") -> tensor<3xf64> {\n"
                     "  %r:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8}, "
                     "operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : "
                     "tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : "
                     "tensor<2xindex>, dense<> : tensor<0xindex>]} : (" + std::string(shapes) + ", tensor<i32>)\n"
                     "  return %r#1 : tensor<3xf64>\n}\n");
  }
  checkDerivatives(R"(
    func.func @main(%a: tensor<2x4x3xf64>) -> tensor<2x3xf64> {
      %r:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x3xf64>, tensor<2x4x3xf64>, tensor<2x3x3xf64>, tensor<2xi32>)
      return %r#1 : tensor<2x3xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%m: tensor<2x3x3xf64>) -> tensor<2x3xf64> {
      %a = stablehlo.transpose %m, dims = [0, 2, 1] : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
      %s = stablehlo.add %m, %a : tensor<2x3x3xf64>
      %r:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%s) {mhlo.backend_config = {mode = 78 : ui8, uplo = 85 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x3x3xf64>) -> (tensor<2x3x3xf64>, tensor<2x3xf64>, tensor<2xi32>)
      return %r#1 : tensor<2x3xf64>
    })",
                   {-1, 1});
  auto workspace = stablehlo::parseModule(R"(
    func.func @main(%a: tensor<3x3xf64>) -> tensor<3x3xf64> {
      %r:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<i32>)
      return %r#0 : tensor<3x3xf64>
    })");
  EXPECT_EQ(errorOf([&] { jvp(*workspace, *workspace->lookup("main"), "j"); }),
            "unsupported: unsupported: jvp of stablehlo.custom_call @lapack_dsyevd_ffi (a use of the workspace syevd "
            "returns without vectors, line 3)");
  // QR: the packed reflectors and τs themselves (tall, square, where a real matrix's
  // last τ is 0, and batched), Q and R as JAX's qr computes them (R the packed matrix's
  // upper triangle, Q from orgqr), and orgqr alone on any reflectors.
  const std::string m2 = "dense<[0, 1]> : tensor<2xindex>", v1 = "dense<0> : tensor<1xindex>";
  const std::string m3 = "dense<[1, 2, 0]> : tensor<3xindex>", v2 = "dense<[1, 0]> : tensor<2xindex>";
  auto geqrf = [](const std::string& shape, const std::string& tau, const std::string& layout, const std::string& tauLayout) {
    return "%r:2 = stablehlo.custom_call @lapack_dgeqrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [" + layout +
           "], result_layouts = [" + layout + ", " + tauLayout + "]} : (tensor<" + shape + "xf64>) -> (tensor<" + shape +
           "xf64>, tensor<" + tau + "xf64>)";
  };
  for (const auto& [shape, tau] : std::vector<std::pair<std::string, std::string>>{{"4x3", "3"}, {"3x3", "3"}}) {
    checkDerivatives("func.func @main(%a: tensor<" + shape + "xf64>) -> (tensor<" + shape + "xf64>, tensor<" + tau +
                     "xf64>) {\n  " + geqrf(shape, tau, m2, v1) + "\n  return %r#0, %r#1 : tensor<" + shape +
                     "xf64>, tensor<" + tau + "xf64>\n}\n");
  }
  checkDerivatives("func.func @main(%a: tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xf64>) {\n  " +
                   geqrf("2x5x3", "2x3", m3, v2) + "\n  return %r#0, %r#1 : tensor<2x5x3xf64>, tensor<2x3xf64>\n}\n");
  checkDerivatives("func.func @main(%a: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3x3xf64>) {\n  " +
                   geqrf("4x3", "3", m2, v1) + "\n"
                   "  %q = stablehlo.custom_call @lapack_dorgqr_ffi(%r#0, %r#1) {mhlo.backend_config = {}, operand_layouts = [" +
                   m2 + ", " + v1 + "], result_layouts = [" + m2 + "]} : (tensor<4x3xf64>, tensor<3xf64>) -> tensor<4x3xf64>\n"
                   "  %top = stablehlo.slice %r#0 [0:3, 0:3] : (tensor<4x3xf64>) -> tensor<3x3xf64>\n"
                   "  %row = stablehlo.iota dim = 0 : tensor<3x3xi64>\n"
                   "  %col = stablehlo.iota dim = 1 : tensor<3x3xi64>\n"
                   "  %upper = stablehlo.compare LE, %row, %col : (tensor<3x3xi64>, tensor<3x3xi64>) -> tensor<3x3xi1>\n"
                   "  %zero = stablehlo.constant dense<0.0> : tensor<3x3xf64>\n"
                   "  %R = stablehlo.select %upper, %top, %zero : tensor<3x3xi1>, tensor<3x3xf64>\n"
                   "  return %q, %R : tensor<4x3xf64>, tensor<3x3xf64>\n}\n");
  checkDerivatives("func.func @main(%p: tensor<5x3xf64>, %tau: tensor<2xf64>) -> tensor<5x3xf64> {\n"
                   "  %q = stablehlo.custom_call @lapack_dorgqr_ffi(%p, %tau) {mhlo.backend_config = {}, operand_layouts = [" +
                   m2 + ", " + v1 + "], result_layouts = [" + m2 + "]} : (tensor<5x3xf64>, tensor<2xf64>) -> tensor<5x3xf64>\n"
                   "  return %q : tensor<5x3xf64>\n}\n",
                   {-1, 1});
  // Complex (zgeqrf, zungqr): Q's parts, through the reflectors and complex τs.
  checkDerivatives("func.func @main(%re: tensor<4x3xf64>, %im: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>, "
                   "tensor<3xf64>, tensor<3xf64>) {\n"
                   "  %a = stablehlo.complex %re, %im : tensor<4x3xcomplex<f64>>\n"
                   "  %r:2 = stablehlo.custom_call @lapack_zgeqrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [" + m2 +
                   "], result_layouts = [" + m2 + ", " + v1 + "]} : (tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, "
                   "tensor<3xcomplex<f64>>)\n"
                   "  %q = stablehlo.custom_call @lapack_zungqr_ffi(%r#0, %r#1) {mhlo.backend_config = {}, operand_layouts = [" +
                   m2 + ", " + v1 + "], result_layouts = [" + m2 + "]} : (tensor<4x3xcomplex<f64>>, tensor<3xcomplex<f64>>) -> "
                   "tensor<4x3xcomplex<f64>>\n"
                   "  %qr = stablehlo.real %q : (tensor<4x3xcomplex<f64>>) -> tensor<4x3xf64>\n"
                   "  %qi = stablehlo.imag %q : (tensor<4x3xcomplex<f64>>) -> tensor<4x3xf64>\n"
                   "  %tr = stablehlo.real %r#1 : (tensor<3xcomplex<f64>>) -> tensor<3xf64>\n"
                   "  %ti = stablehlo.imag %r#1 : (tensor<3xcomplex<f64>>) -> tensor<3xf64>\n"
                   "  return %qr, %qi, %tr, %ti : tensor<4x3xf64>, tensor<4x3xf64>, tensor<3xf64>, tensor<3xf64>\n}\n");
  // Eigenvalues of general matrices (geev), as JAX's eig rule: real (complex pairs among
  // them at random points; the call computes no vectors, the rule a second call with
  // both) and complex; eigenvectors, and the Schur, Hessenberg and tridiagonal
  // reductions, have no derivative, as in JAX.
  const std::string none = "dense<> : tensor<0xindex>";
  const std::string geevLayouts = "operand_layouts = [" + m2 + "], result_layouts = [" + v1 + ", " + v1 + ", " + m2 + ", " +
                                  m2 + ", " + none + "]";
  checkDerivatives("func.func @main(%a: tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {\n"
                   "  %r:5 = stablehlo.custom_call @lapack_dgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, "
                   "compute_right = 78 : ui8}, " + geevLayouts + "} : (tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3xf64>, "
                   "tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<i32>)\n"
                   "  return %r#0, %r#1 : tensor<3xf64>, tensor<3xf64>\n}\n");
  checkDerivatives("func.func @main(%re: tensor<3x3xf64>, %im: tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {\n"
                   "  %a = stablehlo.complex %re, %im : tensor<3x3xcomplex<f64>>\n"
                   "  %r:4 = stablehlo.custom_call @lapack_zgeev_ffi(%a) {mhlo.backend_config = {compute_left = 86 : ui8, "
                   "compute_right = 86 : ui8}, operand_layouts = [" + m2 + "], result_layouts = [" + v1 + ", " + m2 + ", " + m2 +
                   ", " + none + "]} : (tensor<3x3xcomplex<f64>>) -> (tensor<3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, "
                   "tensor<3x3xcomplex<f64>>, tensor<i32>)\n"
                   "  %wr = stablehlo.real %r#0 : (tensor<3xcomplex<f64>>) -> tensor<3xf64>\n"
                   "  %wi = stablehlo.imag %r#0 : (tensor<3xcomplex<f64>>) -> tensor<3xf64>\n"
                   "  return %wr, %wi : tensor<3xf64>, tensor<3xf64>\n}\n");
  auto vectors = stablehlo::parseModule("func.func @main(%a: tensor<3x3xf64>) -> tensor<3x3xcomplex<f64>> {\n"
                                        "  %r:5 = stablehlo.custom_call @lapack_dgeev_ffi(%a) {mhlo.backend_config = {compute_left = "
                                        "78 : ui8, compute_right = 86 : ui8}, " + geevLayouts + "} : (tensor<3x3xf64>) -> "
                                        "(tensor<3xf64>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, "
                                        "tensor<i32>)\n  return %r#3 : tensor<3x3xcomplex<f64>>\n}\n");
  EXPECT_EQ(errorOf([&] { jvp(*vectors, *vectors->lookup("main"), "j"); }),
            "unsupported: unsupported: jvp of stablehlo.custom_call @lapack_dgeev_ffi (derivatives of eigenvectors, which "
            "JAX does not define either; eigenvalues only, line 2)");
  auto schur = stablehlo::parseModule("func.func @main(%a: tensor<3x3xf64>) -> tensor<3x3xf64> {\n"
                                      "  %r:6 = stablehlo.custom_call @lapack_dgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, "
                                      "sort = 78 : ui8}, operand_layouts = [" + m2 + "], result_layouts = [" + m2 + ", " + m2 +
                                      ", " + v1 + ", " + v1 + ", " + none + ", " + none + "]} : (tensor<3x3xf64>) -> "
                                      "(tensor<3x3xf64>, tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<i32>, tensor<i32>)\n"
                                      "  return %r#0 : tensor<3x3xf64>\n}\n");
  EXPECT_EQ(errorOf([&] { jvp(*schur, *schur->lookup("main"), "j"); }),
            "unsupported: unsupported: jvp of stablehlo.custom_call @lapack_dgees_ffi (the Schur decomposition has no "
            "derivative (JAX defines none either), line 2)");
  auto qr = stablehlo::parseModule("func.func @main(%a: tensor<3x4xf64>) -> tensor<3x4xf64> {\n  " +
                                   geqrf("3x4", "3", m2, v1) + "\n  return %r#0 : tensor<3x4xf64>\n}\n");
  EXPECT_EQ(errorOf([&] { jvp(*qr, *qr->lookup("main"), "j"); }),
            "unsupported: unsupported: jvp of stablehlo.custom_call @lapack_dgeqrf_ffi (QR of a wide matrix (fewer rows "
            "than columns), as in JAX, line 2)");
  // Row-major matrices are their transposes to LAPACK: not what the rules are for.
  auto rowMajor = stablehlo::parseModule(R"(
    func.func @main(%a: tensor<3x3xf64>) -> tensor<3x3xf64> {
      %r:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i32>)
      return %r#0 : tensor<3x3xf64>
    })");
  EXPECT_EQ(errorOf([&] { jvp(*rowMajor, *rowMajor->lookup("main"), "j"); }),
            "unsupported: unsupported: jvp of stablehlo.custom_call @lapack_dpotrf_ffi (matrices not in jaxlib's "
            "column-major layout, line 3)");
}

TEST(AutodiffTest, Ffts) {
  auto complexProgram = [](const std::string& in, const std::string& fft, const std::string& out) {
    return "func.func @main(%re: " + in + ", %im: " + in + ") -> " + out + " {\n  %z = stablehlo.complex %re, %im : " +
           in.substr(0, in.size() - 4) + "complex<f64>>\n  " + fft + "\n  return %f : " + out + "\n}\n";
  };
  for (const char* type : {"FFT", "IFFT"}) {
    for (const char* length : {"[6]", "[4, 6]"}) {
      std::string fft = std::string("%c = stablehlo.fft %z, type = ") + type + ", length = " + length +
                        " : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>\n  %r = stablehlo.real %c : "
                        "(tensor<4x6xcomplex<f64>>) -> tensor<4x6xf64>\n  %i = stablehlo.imag %c : "
                        "(tensor<4x6xcomplex<f64>>) -> tensor<4x6xf64>\n  %f = stablehlo.add %r, %i : tensor<4x6xf64>";
      SCOPED_TRACE(std::string(type) + " " + length);
      checkDerivatives(complexProgram("tensor<4x6xf64>", fft, "tensor<4x6xf64>"));
    }
  }
  struct Real {
    const char* length;
    const char* real;     // the real signal's type
    const char* complex;  // its half spectrum's
  };
  for (const Real& c : std::vector<Real>{{"[6]", "tensor<4x6xf64>", "tensor<4x4xcomplex<f64>>"},
                                         {"[5]", "tensor<4x5xf64>", "tensor<4x3xcomplex<f64>>"},
                                         {"[4, 5]", "tensor<4x5xf64>", "tensor<4x3xcomplex<f64>>"},
                                         {"[4, 6]", "tensor<4x6xf64>", "tensor<4x4xcomplex<f64>>"}}) {
    SCOPED_TRACE(c.length);
    std::string half = std::string(c.complex);
    std::string halfReal = half.substr(0, half.find("complex")) + "f64>";
    checkDerivatives("func.func @main(%x: " + std::string(c.real) + ") -> (" + halfReal + ", " + halfReal +
                     ") {\n  %c = stablehlo.fft %x, type = RFFT, length = " + c.length + " : (" + c.real + ") -> " +
                     half + "\n  %r = stablehlo.real %c : (" + half + ") -> " + halfReal +
                     "\n  %i = stablehlo.imag %c : (" + half + ") -> " + halfReal + "\n  return %r, %i : " + halfReal +
                     ", " + halfReal + "\n}\n");
    std::string irfft = "%f = stablehlo.fft %z, type = IRFFT, length = " + std::string(c.length) + " : (" + half +
                        ") -> " + c.real;
    checkDerivatives(complexProgram(halfReal, irfft, c.real));
  }
}

// reduce_precision is linear as JAX treats it: at full precision the derivative is the
// identity's; narrower, the tangent and the cotangent are rounded like the values.
TEST(AutodiffTest, ReducePrecision) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<6xf64>) -> tensor<6xf64> {
      %r = stablehlo.reduce_precision %x, format = e11m52 : tensor<6xf64>
      %s = stablehlo.sine %r : tensor<6xf64>
      return %s : tensor<6xf64>
    })");
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<f64>) -> tensor<f64> {
      %r = stablehlo.reduce_precision %x, format = e5m2 : tensor<f64>
      return %r : tensor<f64>
    })");
  jvp(*m, *m->lookup("main"), "main_jvp");
  vjp(*m, *m->lookup("main"), "main_vjp");
  interp::Interpreter in(*m);
  EXPECT_EQ(in.call("main_jvp", HostValues{f64(1.0), f64(1.3)})[1].tensor().floatAt(0), 1.25);
  EXPECT_EQ(in.call("main_vjp", HostValues{f64(1.0), f64(1.3)})[1].tensor().floatAt(0), 1.25);
}

// |z| of a complex z: its tangent is t's component along z.
TEST(AutodiffTest, AbsOfComplex) {
  const char* text = R"(
    func.func @main(%x: tensor<6xf64>, %y: tensor<6xf64>) -> tensor<6xf64> {
      %z = stablehlo.complex %x, %y : tensor<6xcomplex<f64>>
      %a = stablehlo.abs %z : (tensor<6xcomplex<f64>>) -> tensor<6xf64>
      return %a : tensor<6xf64>
    })";
  checkDerivatives(text);
  // At z = 0, where |z| has no derivative, the tangent and the cotangents are 0, not NaN.
  auto m = stablehlo::parseModule(text);
  jvp(*m, *m->lookup("main"), "main_jvp");
  Function& g = vjp(*m, *m->lookup("main"), "main_vjp");
  Literal zero(Type::tensor(DType::F64, {6})), one(Type::tensor(DType::F64, {6}));
  for (int64_t i = 0; i < 6; ++i) {
    zero.setFloat(i, 0);
    one.setFloat(i, 1);
  }
  interp::Interpreter in(*m);
  EXPECT_EQ(in.call("main_jvp", HostValues{zero, zero, one, one})[1].tensor().floatAt(0), 0.0);
  HostValues back = in.call(g.name(), HostValues{zero, zero, one});
  EXPECT_EQ(back[1].tensor().floatAt(0), 0.0);
  EXPECT_EQ(back[2].tensor().floatAt(0), 0.0);
}

// Tuples carry their elements' tangents: nested, with an integer element, taken apart
// more than once (the cotangents of a tuple add element by element), and through a loop
// that carries a tuple.
TEST(AutodiffTest, Tuples) {
  checkDerivatives(R"(
    func.func @main(%x: tensor<3xf64>, %y: tensor<2xf64>) -> (tensor<3xf64>, tensor<2xf64>) {
      %n = stablehlo.constant dense<1> : tensor<i32>
      %t = stablehlo.tuple %x, %n, %y : tuple<tensor<3xf64>, tensor<i32>, tensor<2xf64>>
      %u = stablehlo.tuple %t, %x : tuple<tuple<tensor<3xf64>, tensor<i32>, tensor<2xf64>>, tensor<3xf64>>
      %a = stablehlo.get_tuple_element %u[0] : (tuple<tuple<tensor<3xf64>, tensor<i32>, tensor<2xf64>>, tensor<3xf64>>) -> tuple<tensor<3xf64>, tensor<i32>, tensor<2xf64>>
      %b = stablehlo.get_tuple_element %a[0] : (tuple<tensor<3xf64>, tensor<i32>, tensor<2xf64>>) -> tensor<3xf64>
      %c = stablehlo.get_tuple_element %a[2] : (tuple<tensor<3xf64>, tensor<i32>, tensor<2xf64>>) -> tensor<2xf64>
      %d = stablehlo.get_tuple_element %u[1] : (tuple<tuple<tensor<3xf64>, tensor<i32>, tensor<2xf64>>, tensor<3xf64>>) -> tensor<3xf64>
      %m = stablehlo.multiply %b, %d : tensor<3xf64>
      %s = stablehlo.sine %c : tensor<2xf64>
      return %m, %s : tensor<3xf64>, tensor<2xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %three = stablehlo.constant dense<3> : tensor<i64>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %t = stablehlo.tuple %x, %x : tuple<tensor<2xf64>, tensor<2xf64>>
      %r:2 = stablehlo.while(%i = %zero, %p = %t) : tensor<i64>, tuple<tensor<2xf64>, tensor<2xf64>>
      cond {
        %c = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %n = stablehlo.add %i, %one : tensor<i64>
        %a = stablehlo.get_tuple_element %p[0] : (tuple<tensor<2xf64>, tensor<2xf64>>) -> tensor<2xf64>
        %b = stablehlo.get_tuple_element %p[1] : (tuple<tensor<2xf64>, tensor<2xf64>>) -> tensor<2xf64>
        %m = stablehlo.multiply %a, %b : tensor<2xf64>
        %s = stablehlo.sine %m : tensor<2xf64>
        %q = stablehlo.tuple %s, %a : tuple<tensor<2xf64>, tensor<2xf64>>
        stablehlo.return %n, %q : tensor<i64>, tuple<tensor<2xf64>, tensor<2xf64>>
      }
      %y = stablehlo.get_tuple_element %r#1[0] : (tuple<tensor<2xf64>, tensor<2xf64>>) -> tensor<2xf64>
      return %y : tensor<2xf64>
    })",
                   {}, 3, Modes::ForwardOnly);
  // A tuple parameter or result has a tuple tangent and cotangent.
  auto m = stablehlo::parseModule(R"(
    func.func @main(%t: tuple<tensor<2xf64>, tensor<i32>>) -> tuple<tensor<2xf64>, tensor<i32>> {
      %a = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf64>, tensor<i32>>) -> tensor<2xf64>
      %n = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xf64>, tensor<i32>>) -> tensor<i32>
      %s = stablehlo.sine %a : tensor<2xf64>
      %r = stablehlo.tuple %s, %n : tuple<tensor<2xf64>, tensor<i32>>
      return %r : tuple<tensor<2xf64>, tensor<i32>>
    })");
  Function& j = jvp(*m, *m->lookup("main"), "j");
  Function& v = vjp(*m, *m->lookup("main"), "v");
  ASSERT_NO_THROW(verifyModule(*m));
  EXPECT_EQ(j.paramTypes()[1], j.paramTypes()[0]);
  EXPECT_EQ(j.resultTypes().size(), 2u);
  EXPECT_EQ(v.resultTypes()[1], v.paramTypes()[0]);
}

// Loops carry tangents (also of values their bodies capture), conditionals yield them;
// counted loops are reversed through their stored carries.
TEST(AutodiffTest, ControlFlow) {
  // y = x·a^5 by a counted loop whose body captures a.
  checkDerivatives(R"(
    func.func @main(%x: tensor<3xf64>, %a: tensor<3xf64>) -> tensor<3xf64> {
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %five = stablehlo.constant dense<5> : tensor<i64>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %r:2 = stablehlo.while(%i = %zero, %y = %x) : tensor<i64>, tensor<3xf64>
      cond {
        %c = stablehlo.compare LT, %i, %five : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %n = stablehlo.add %i, %one : tensor<i64>
        %m = stablehlo.multiply %y, %a : tensor<3xf64>
        %s = stablehlo.sine %m : tensor<3xf64>
        stablehlo.return %n, %s : tensor<i64>, tensor<3xf64>
      }
      return %r#1 : tensor<3xf64>
    })");
  // A scan: a recurrence h = tanh(w·h + x[t]) over 4 steps whose states are written into
  // an output buffer, the bound a carry, the weights captured.
  checkDerivatives(R"(
    func.func @main(%x: tensor<4x3xf64>, %w: tensor<3x3xf64>, %h0: tensor<3xf64>) -> (tensor<4x3xf64>, tensor<3xf64>) {
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %four = stablehlo.constant dense<4> : tensor<i64>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %buffer = stablehlo.constant dense<0.0> : tensor<4x3xf64>
      %r:4 = stablehlo.while(%i = %zero, %n = %four, %h = %h0, %out = %buffer) : tensor<i64>, tensor<i64>, tensor<3xf64>, tensor<4x3xf64>
      cond {
        %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %z = stablehlo.constant dense<0> : tensor<i64>
        %row = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, 3] : (tensor<4x3xf64>, tensor<i64>, tensor<i64>) -> tensor<1x3xf64>
        %xt = stablehlo.reshape %row : (tensor<1x3xf64>) -> tensor<3xf64>
        %wh = stablehlo.dot_general %w, %h, contracting_dims = [1] x [0] : (tensor<3x3xf64>, tensor<3xf64>) -> tensor<3xf64>
        %s = stablehlo.add %wh, %xt : tensor<3xf64>
        %hn = stablehlo.tanh %s : tensor<3xf64>
        %hr = stablehlo.reshape %hn : (tensor<3xf64>) -> tensor<1x3xf64>
        %o = stablehlo.dynamic_update_slice %out, %hr, %i, %z : (tensor<4x3xf64>, tensor<1x3xf64>, tensor<i64>, tensor<i64>) -> tensor<4x3xf64>
        %next = stablehlo.add %i, %one : tensor<i64>
        stablehlo.return %next, %n, %hn, %o : tensor<i64>, tensor<i64>, tensor<3xf64>, tensor<4x3xf64>
      }
      return %r#3, %r#2 : tensor<4x3xf64>, tensor<3xf64>
    })");
  checkDerivatives(R"(
    func.func @main(%x: tensor<f64>, %y: tensor<f64>) -> tensor<f64> {
      %p = stablehlo.compare GT, %x, %y : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %r = "stablehlo.if"(%p) ({
        %m = stablehlo.multiply %x, %y : tensor<f64>
        stablehlo.return %m : tensor<f64>
      }, {
        %e = stablehlo.exponential %y : tensor<f64>
        stablehlo.return %e : tensor<f64>
      }) : (tensor<i1>) -> tensor<f64>
      return %r : tensor<f64>
    })",
                   {}, 6);
  checkDerivatives(R"(
    func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
      %k = stablehlo.constant dense<1> : tensor<i32>
      %r = "stablehlo.case"(%k) ({
        stablehlo.return %x : tensor<2xf64>
      }, {
        %t = stablehlo.tanh %x : tensor<2xf64>
        stablehlo.return %t : tensor<2xf64>
      }) : (tensor<i32>) -> tensor<2xf64>
      return %r : tensor<2xf64>
    })");
}

// A loop that runs until its value passes a threshold (a trip count known only at run
// time): reversed under a bound, and a run past the bound fails instead of answering.
TEST(AutodiffTest, DataDependentLoopUnderABound) {
  const char* text = R"(
    func.func @main(%x: tensor<f64>, %a: tensor<f64>) -> tensor<f64> {
      %r:2 = stablehlo.while(%y = %x, %k = %a) : tensor<f64>, tensor<f64>
      cond {
        %ten = stablehlo.constant dense<10.0> : tensor<f64>
        %c = stablehlo.compare LT, %y, %ten : (tensor<f64>, tensor<f64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %m = stablehlo.multiply %y, %k : tensor<f64>
        %s = stablehlo.sine %k : tensor<f64>
        %n = stablehlo.add %m, %s : tensor<f64>
        stablehlo.return %n, %k : tensor<f64>, tensor<f64>
      }
      return %r#0 : tensor<f64>
    })";
  auto m = stablehlo::parseModule(text);
  Function& f = *m->lookup("main");
  Function& j = jvp(*m, f, "j");
  Function& v = vjp(*m, f, "v", {8});
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  // x = 1.5, a = 1.7: y grows past 10 in a few steps (fewer than 8).
  HostValues x = {f64(1.5), f64(1.7)};
  for (auto [dx, da] : {std::pair{1.0, 0.0}, std::pair{0.0, 1.0}}) {
    double tangent = in.call(j.name(), HostValues{x[0], x[1], f64(dx), f64(da)})[1].tensor().floatAt(0);
    HostValues g = in.call(v.name(), HostValues{x[0], x[1], f64(1.0)});
    double reverse = dx * g[1].tensor().floatAt(0) + da * g[2].tensor().floatAt(0);
    EXPECT_NEAR(tangent, reverse, 1e-12 * std::abs(tangent));
    double h = 1e-6;
    double up = in.call("main", HostValues{f64(1.5 + h * dx), f64(1.7 + h * da)})[0].tensor().floatAt(0);
    double down = in.call("main", HostValues{f64(1.5 - h * dx), f64(1.7 - h * da)})[0].tensor().floatAt(0);
    EXPECT_NEAR(tangent, (up - down) / (2 * h), 1e-5 * std::abs(tangent));
  }
  // From x = 0.01 with a = 1.05 it takes 10 steps.
  EXPECT_EQ(errorOf([&] { in.call(v.name(), HostValues{f64(0.01), f64(1.05), f64(1.0)}); }).substr(0, 40),
            "runtime: stablehlo.custom_call: shape as");
}

// Ties of max share the tangent evenly, as JAX does: d/dx max(x, x) = 1.
TEST(AutodiffTest, TiesOfMaxShareTheTangent) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
      %m = stablehlo.maximum %x, %x : tensor<f64>
      %b = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
      %r = stablehlo.reduce(%b init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
      return %m, %r : tensor<f64>, tensor<f64>
    })");
  jvp(*m, *m->lookup("main"), "main_jvp");
  HostValues r = interp::Interpreter(*m).call("main_jvp", HostValues{f64(2.0), f64(1.0)});
  EXPECT_EQ(r[2].tensor().floatAt(0), 1.0);
  EXPECT_EQ(r[3].tensor().floatAt(0), 1.0);
}

// A two-layer MLP's loss, through a call: grad against finite differences per weight.
TEST(AutodiffTest, GradOfAnMlpLossThroughACall) {
  const char* text = R"(
    func.func private @layer(%x: tensor<4x3xf64>, %w: tensor<3x5xf64>, %b: tensor<5xf64>) -> tensor<4x5xf64> {
      %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
      %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<5xf64>) -> tensor<4x5xf64>
      %s = stablehlo.add %d, %bb : tensor<4x5xf64>
      %t = stablehlo.tanh %s : tensor<4x5xf64>
      return %t : tensor<4x5xf64>
    }
    func.func @main(%x: tensor<4x3xf64>, %w: tensor<3x5xf64>, %b: tensor<5xf64>, %v: tensor<5xf64>) -> tensor<f64> {
      %h = func.call @layer(%x, %w, %b) : (tensor<4x3xf64>, tensor<3x5xf64>, tensor<5xf64>) -> tensor<4x5xf64>
      %o = stablehlo.dot_general %h, %v, contracting_dims = [1] x [0] : (tensor<4x5xf64>, tensor<5xf64>) -> tensor<4xf64>
      %sq = stablehlo.multiply %o, %o : tensor<4xf64>
      %zero = stablehlo.constant dense<0.0> : tensor<f64>
      %l = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xf64>, tensor<f64>) -> tensor<f64>
      return %l : tensor<f64>
    })";
  checkDerivatives(text);
  auto m = stablehlo::parseModule(text);
  Function* f = m->lookup("main");
  GradOptions o;
  o.wrt = {1, 2};
  o.withValue = true;
  grad(*m, *f, o, "main_grad");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  std::mt19937_64 rng(7);
  HostValues x;
  for (size_t i = 0; i < f->numParams(); ++i) x.push_back(randomLiteral(f->param(i)->type(), rng, {-1, 1}));
  HostValues g = in.call("main_grad", x);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].tensor().floatAt(0), in.call("main", x)[0].tensor().floatAt(0));
  for (size_t k = 0; k < 2; ++k) {
    size_t p = o.wrt[k];
    for (int64_t i = 0; i < x[p].tensor().numElements(); ++i) {
      HostValues up = x, down = x;
      Literal a = x[p].tensor(), c = x[p].tensor();
      a.setFloat(i, a.floatAt(i) + 1e-6);
      c.setFloat(i, c.floatAt(i) - 1e-6);
      up[p] = a;
      down[p] = c;
      double fd = (in.call("main", up)[0].tensor().floatAt(0) - in.call("main", down)[0].tensor().floatAt(0)) / 2e-6;
      EXPECT_NEAR(g[1 + k].tensor().floatAt(i), fd, 1e-6 * (1 + std::abs(fd))) << "parameter " << p << " element " << i;
    }
  }
}

// The remat policies give the same gradients, bit for bit, and recompute more the less
// they keep; the recomputation survives the cleanup (CSE cannot merge it back).
TEST(AutodiffTest, RematPoliciesRecomputeWhatTheyDoNotKeep) {
  const char* text = R"(
    func.func @main(%x: tensor<4x3xf64>, %w: tensor<3x5xf64>) -> tensor<f64> {
      %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
      %t = stablehlo.tanh %d : tensor<4x5xf64>
      %e = stablehlo.exponential %t : tensor<4x5xf64>
      %zero = stablehlo.constant dense<0.0> : tensor<f64>
      %l = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x5xf64>, tensor<f64>) -> tensor<f64>
      return %l : tensor<f64>
    })";
  std::vector<HostValues> grads;
  std::vector<int> recomputed;
  for (Remat policy : {Remat::None, Remat::Dots, Remat::All}) {
    auto m = stablehlo::parseModule(text);
    GradOptions o;
    o.wrt = {0, 1};
    o.vjp.remat = policy;
    Function& g = grad(*m, *m->lookup("main"), o, "g");
    ASSERT_NO_THROW(verifyModule(*m));
    int count = 0;
    walk(g.body(), [&](Op& op) { count += op.is(ops::Tanh) + op.is(ops::DotGeneral); });
    recomputed.push_back(count);
    std::mt19937_64 rng(1);
    HostValues x = {randomLiteral(m->lookup("main")->param(0)->type(), rng, {-1, 1}),
                    randomLiteral(m->lookup("main")->param(1)->type(), rng, {-1, 1})};
    grads.push_back(interp::Interpreter(*m).call("g", x));
  }
  for (size_t k = 1; k < grads.size(); ++k)
    for (size_t r = 0; r < 2; ++r) EXPECT_EQ(grads[k][r].tensor(), grads[0][r].tensor()) << k << " " << r;
  // tanh once in the forward pass, again when recomputed; the dot again only under All.
  EXPECT_LT(recomputed[0], recomputed[1]);
  EXPECT_LT(recomputed[1], recomputed[2]);
}

// grad of grad: f(x) = x³·sin(x) → f'' = 6x·sin x + 6x²·cos x - x³·sin x.
TEST(AutodiffTest, GradOfGradIsTheSecondDerivative) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<f64>) -> tensor<f64> {
      %x2 = stablehlo.multiply %x, %x : tensor<f64>
      %x3 = stablehlo.multiply %x2, %x : tensor<f64>
      %s = stablehlo.sine %x : tensor<f64>
      %f = stablehlo.multiply %x3, %s : tensor<f64>
      return %f : tensor<f64>
    })");
  Function& g = grad(*m, *m->lookup("main"), {}, "g");
  Function& h = grad(*m, g, {}, "h");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  for (double x : {-1.3, 0.4, 2.0}) {
    double expected = 6 * x * std::sin(x) + 6 * x * x * std::cos(x) - x * x * x * std::sin(x);
    EXPECT_NEAR(in.call(h.name(), HostValues{f64(x)})[0].tensor().floatAt(0), expected, 1e-12) << x;
  }
}

// stop_gradient: d/dx (x · stop_gradient(x)) = x, not 2x; it runs as the identity and
// lowers away; vmap passes it through.
TEST(AutodiffTest, StopGradient) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<f64>) -> tensor<f64> {
      %s = "kiln.stop_gradient"(%x) : (tensor<f64>) -> tensor<f64>
      %p = stablehlo.multiply %x, %s : tensor<f64>
      return %p : tensor<f64>
    })");
  Function& g = grad(*m, *m->lookup("main"), {}, "g");
  Function& v = vmap(*m, *m->lookup("main"), {{0}, {0}, 3}, "v");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  EXPECT_EQ(in.call("main", HostValues{f64(3.0)})[0].tensor().floatAt(0), 9.0);
  EXPECT_EQ(in.call(g.name(), HostValues{f64(3.0)})[0].tensor().floatAt(0), 3.0);
  Literal xs(Type::tensor(DType::F64, {3}));
  for (int64_t i = 0; i < 3; ++i) xs.setFloat(i, static_cast<double>(i + 1));
  EXPECT_EQ(in.call(v.name(), HostValues{xs})[0].tensor().floatAt(2), 9.0);
}

// Only float values carry tangents: integer parameters and results are left out.
TEST(AutodiffTest, IntegersHaveNoTangents) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<3xf64>, %n: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xf64>) {
      %f = stablehlo.convert %n : (tensor<3xi32>) -> tensor<3xf64>
      %p = stablehlo.multiply %x, %f : tensor<3xf64>
      return %n, %p : tensor<3xi32>, tensor<3xf64>
    })");
  Function& j = jvp(*m, *m->lookup("main"), "j");
  EXPECT_EQ(j.numParams(), 3u);            // x, n, tangent of x
  EXPECT_EQ(j.resultTypes().size(), 3u);   // n, p, tangent of p
  Function& v = vjp(*m, *m->lookup("main"), "v");
  EXPECT_EQ(v.numParams(), 3u);            // x, n, cotangent of p
  EXPECT_EQ(v.resultTypes().size(), 3u);   // n, p, cotangent of x
}

TEST(AutodiffTest, ClearErrors) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<3xf64>, %n: tensor<i32>) -> tensor<2x3xf64> {
      %s = "stablehlo.custom_call"(%x) {call_target_name = "my_kernel"} : (tensor<3xf64>) -> tensor<2x3xf64>
      return %s : tensor<2x3xf64>
    })");
  Function& f = *m->lookup("main");
  // An opaque custom call is named by its target.
  EXPECT_EQ(errorOf([&] { jvp(*m, f, "j"); }), "unsupported: unsupported: jvp of stablehlo.custom_call @my_kernel (line 3)");
  // A loop whose trip count depends on the data is reversed only under a bound.
  auto loop = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<f64>) -> tensor<f64> {
      %r = stablehlo.while(%y = %x) : tensor<f64>
      cond {
        %c = stablehlo.compare LT, %y, %y : (tensor<f64>, tensor<f64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        stablehlo.return %y : tensor<f64>
      }
      return %r : tensor<f64>
    })");
  EXPECT_EQ(errorOf([&] { vjp(*loop, *loop->lookup("main"), "v"); }),
            "unsupported: unsupported: vjp of stablehlo.while (a while loop whose trip count is not known when the "
            "program is built (the counted loops of fori_loop and scan are); give a bound on its iterations "
            "(--loop-bound), line 3)");
  EXPECT_EQ(errorOf([&] { grad(*m, f, {}, "g"); }),
            "usage: grad of @main: the function must return one floating-point scalar, not (tensor<2x3xf64>)");
  auto s = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<f64>, %n: tensor<i32>) -> tensor<f64> {
      return %x : tensor<f64>
    })");
  GradOptions o;
  o.wrt = {2};
  EXPECT_EQ(errorOf([&] { grad(*s, *s->lookup("main"), o, "g"); }), "usage: grad of @main: no parameter 2 (it has 2)");
  o.wrt = {1};
  EXPECT_EQ(errorOf([&] { grad(*s, *s->lookup("main"), o, "g"); }),
            "usage: grad of @main: parameter 1 is tensor<i32>, which has no gradient");
}

}  // namespace
}  // namespace kiln::transforms
