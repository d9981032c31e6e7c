// split-complex-sums: complex sums (reduce and reduce_window with an add body) become
// sums of the parts with the same bits on the interpreter — long rows over several
// reduction chunks, special values in either part, the init's parts, windows with
// padding — and the cpu backend then sums them natively; other bodies stay as they are.
#include <gtest/gtest.h>

#include "backends/cpu/cpu_test_util.h"
#include "ir/ops/stablehlo.h"
#include "passes/pass_test_util.h"

namespace kiln::passes {
namespace {

using test_util::count;
using test_util::Inputs;
using test_util::NaNs;
using test_util::runAndCompare;

// Rows of 9000 (three chunks of the reduction order) and columns, with a body adding
// in either order, and an init with a -0 imaginary part.
constexpr const char* kSums = R"(
func.func @main(%x: tensor<3x9000xcomplex<f32>>, %y: tensor<5x7xcomplex<f64>>) -> (tensor<3xcomplex<f32>>, tensor<7xcomplex<f64>>) {
  %z = stablehlo.constant dense<(0.5, -0.0)> : tensor<complex<f32>>
  %rows = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<3x9000xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>
    reducer(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>) {
      %s = stablehlo.add %b, %a : tensor<complex<f32>>
      stablehlo.return %s : tensor<complex<f32>>
    }
  %w = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f64>>
  %cols = stablehlo.reduce(%y init: %w) applies stablehlo.add across dimensions = [0] : (tensor<5x7xcomplex<f64>>, tensor<complex<f64>>) -> tensor<7xcomplex<f64>>
  return %rows, %cols : tensor<3xcomplex<f32>>, tensor<7xcomplex<f64>>
})";

constexpr const char* kWindows = R"(
func.func @main(%x: tensor<6x5xcomplex<f32>>) -> tensor<3x3xcomplex<f32>> {
  %z = stablehlo.constant dense<(-0.0, 1.0)> : tensor<complex<f32>>
  %r = "stablehlo.reduce_window"(%x, %z) ({
    ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
      %s = stablehlo.add %a, %b : tensor<complex<f32>>
      stablehlo.return %s : tensor<complex<f32>>
    }) {window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 2, 2>,
        padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>} : (tensor<6x5xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3x3xcomplex<f32>>
  return %r : tensor<3x3xcomplex<f32>>
})";

constexpr const char* kProducts = R"(
func.func @main(%x: tensor<3x8xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  %r = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<3x8xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>
  return %r : tensor<3xcomplex<f32>>
})";

TEST(SplitComplexSumsTest, SumsOfPartsGiveTheSameBits) {
  for (Inputs inputs : {Inputs::Special, Inputs::Ordinary}) {
    auto sums = runAndCompare(kSums, {"split-complex-sums"}, inputs, NaNs::AnyPayload);
    EXPECT_EQ(count(*sums, ops::Reduce), 4);
    EXPECT_EQ(count(*sums, ops::Complex), 2);
    auto windows = runAndCompare(kWindows, {"split-complex-sums"}, inputs, NaNs::AnyPayload);
    EXPECT_EQ(count(*windows, ops::ReduceWindow), 2);
  }
  auto products = runAndCompare(kProducts, {"split-complex-sums"});
  EXPECT_EQ(count(*products, ops::Complex), 0);  // left alone
}

TEST(SplitComplexSumsTest, TheCpuBackendSumsComplexNumbersNatively) {
  for (const char* text : {kSums, kWindows}) {
    cpu::test_util::Compiled c = cpu::test_util::compile(text);
    EXPECT_TRUE(c.exe->declinedReasons().empty()) << c.exe->report();
    const Function& fn = *c.module->lookup("main");
    for (Inputs inputs : {Inputs::Special, Inputs::Ordinary}) {
      interp::HostValues args;
      for (size_t i = 0; i < fn.numParams(); ++i)
        args.push_back(inputs == Inputs::Special ? test_util::specialValues(fn.param(i)->type(), i)
                                                 : test_util::ordinaryValues(fn.param(i)->type(), i));
      test_util::expectBitIdentical(interp::Interpreter(*c.reference).call("main", args), c.exe->call(fn, args), "",
                                    NaNs::AnyPayload);
    }
  }
}

}  // namespace
}  // namespace kiln::passes
