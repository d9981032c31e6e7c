// The two small transformations the derivative checks stand on: promoting a program's
// floats to f64 computes what the f32 program computes, to f32 precision; lifting a test
// program's constants into parameters reproduces its results from the returned inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "interp/interpreter.h"
#include "stablehlo/parser.h"
#include "testing/lift_constants.h"
#include "transforms/promote_floats.h"
#include "transforms/transform_test_util.h"

namespace kiln::transforms {
namespace {

using interp::HostValues;

TEST(PromoteFloatsTest, ComputesTheSameToF32Precision) {
  const char* text = R"(
    func.func @main(%x: tensor<4xf32>, %h: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xi32>, tensor<f32>) {
      %c = stablehlo.constant dense<[0.5, 1.5, -2.0, 3.25]> : tensor<4xf32>
      %hf = stablehlo.convert %h : (tensor<4xbf16>) -> tensor<4xf32>
      %m = stablehlo.multiply %x, %c : tensor<4xf32>
      %a = stablehlo.add %m, %hf : tensor<4xf32>
      %t = stablehlo.tanh %a : tensor<4xf32>
      %i = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>
      %zero = arith.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%t init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      return %t, %i, %s : tensor<4xf32>, tensor<4xi32>, tensor<f32>
    })";
  auto narrow = stablehlo::parseModule(text);
  auto wide = stablehlo::parseModule(text);
  promoteFloatsToF64(*wide);
  const Function& f = *wide->lookup("main");
  EXPECT_EQ(f.param(0)->type().dtype(), DType::F64);
  EXPECT_EQ(f.param(1)->type().dtype(), DType::F64);
  EXPECT_EQ(f.resultTypes()[1].dtype(), DType::I32);  // integers stay
  Literal x(Type::tensor(DType::F32, {4})), h(Type::tensor(DType::BF16, {4}));
  Literal xw(Type::tensor(DType::F64, {4})), hw(Type::tensor(DType::F64, {4}));
  for (int64_t i = 0; i < 4; ++i) {
    x.setFloat(i, 0.3 * static_cast<double>(i) - 0.4);
    h.setFloat(i, 0.25 * static_cast<double>(i));
    xw.setFloat(i, x.floatAt(i));
    hw.setFloat(i, h.floatAt(i));
  }
  HostValues a = interp::Interpreter(*narrow).call("main", {x, h});
  HostValues b = interp::Interpreter(*wide).call("main", {xw, hw});
  for (size_t r : {size_t{0}, size_t{2}})
    for (int64_t i = 0; i < a[r].tensor().numElements(); ++i)
      EXPECT_NEAR(a[r].tensor().floatAt(i), b[r].tensor().floatAt(i), 1e-6) << r << " " << i;
  EXPECT_EQ(a[1].tensor().intAt(2), b[1].tensor().intAt(2));
  // Reinterpreting bits has no f64 meaning: refused before anything changes.
  auto bits = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<2xf32>) -> tensor<2xi32> {
      %b = stablehlo.bitcast_convert %x : (tensor<2xf32>) -> tensor<2xi32>
      return %b : tensor<2xi32>
    })");
  EXPECT_EQ(test_util::errorOf([&] { promoteFloatsToF64(*bits); }),
            "unsupported: unsupported: promoting stablehlo.bitcast_convert to f64 (line 3)");
  EXPECT_EQ(bits->lookup("main")->param(0)->type().dtype(), DType::F32);
}

// jaxlib's LAPACK calls become their double-precision routines (s to d, c to z), and
// compute the same to f32 precision.
TEST(PromoteFloatsTest, LapackCallsBecomeTheirDoubleRoutines) {
  const char* text = R"(
    func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<i32>)
      return %r#0 : tensor<2x2xf32>
    })";
  auto narrow = stablehlo::parseModule(text);
  auto wide = stablehlo::parseModule(text);
  promoteFloatsToF64(*wide);
  const Op& call = *wide->lookup("main")->body().ops().front();
  EXPECT_EQ(call.attr("call_target_name").asString(), "lapack_dpotrf_ffi");
  Literal a(Type::tensor(DType::F32, {2, 2})), aw(Type::tensor(DType::F64, {2, 2}));
  const double values[] = {4, 1, 1, 3};
  for (int64_t i = 0; i < 4; ++i) {
    a.setFloat(i, values[i]);
    aw.setFloat(i, values[i]);
  }
  Literal l = interp::Interpreter(*narrow).call("main", {a})[0].tensor();
  Literal lw = interp::Interpreter(*wide).call("main", {aw})[0].tensor();
  for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(l.floatAt(i), lw.floatAt(i), 1e-6) << i;
}

TEST(LiftConstantsTest, InputsBecomeParameters) {
  auto m = stablehlo::parseModule(R"(
    func.func @main() -> tensor<3xf32> {
      %0 = call @inputs() : () -> tensor<3xf32>
      %1 = call @expected() : () -> tensor<3xf32>
      %k = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
      %kf = stablehlo.convert %k : (tensor<3xi32>) -> tensor<3xf32>
      %2 = stablehlo.multiply %0, %kf : tensor<3xf32>
      stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
      return %2 : tensor<3xf32>
    }
    func.func private @inputs() -> tensor<3xf32> {
      %c = stablehlo.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
      return %c : tensor<3xf32>
    }
    func.func private @expected() -> tensor<3xf32> {
      %c = stablehlo.constant dense<[0.5, -2.0, 6.0]> : tensor<3xf32>
      return %c : tensor<3xf32>
    })");
  Function& f = *m->lookup("main");
  std::vector<Literal> inputs = kiln::testing::liftConstants(*m, f);
  // The float input became a parameter; the integer constant and the expected values
  // (used only by the check, now gone) did not.
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(f.numParams(), 1u);
  HostValues r = interp::Interpreter(*m).call("main", {inputs[0]});
  EXPECT_EQ(r[0].tensor().floatAt(1), -2.0);
  EXPECT_EQ(r[0].tensor().floatAt(2), 6.0);
}

}  // namespace
}  // namespace kiln::transforms
