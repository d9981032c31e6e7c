// --fill-elided: every elided constant gets seeded random data in the documented ranges,
// the same for the same seed, and the program then runs to finite results.
#include "passes/fill_elided_constants.h"

#include <gtest/gtest.h>

#include <cmath>

#include "interp/interpreter.h"
#include "ir/elided_constants.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"

namespace kiln::passes {
namespace {

const char* kElided = R"(func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<3xi32>) {
  %w = stablehlo.constant dense_resource<__elided__> : tensor<3x4xf32>
  %b = stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
  %i = stablehlo.constant dense_resource<__elided__> : tensor<3xi32>
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x4xf32>
  %3 = stablehlo.rsqrt %1 : tensor<2x4xf32>
  %4 = stablehlo.multiply %2, %3 : tensor<2x4xf32>
  return %4, %i : tensor<2x4xf32>, tensor<3xi32>
})";

std::unique_ptr<Module> filled(uint64_t seed) {
  auto m = stablehlo::parseModule(std::string(kElided));
  EXPECT_EQ(fillElidedConstants(*m, seed), 3u);
  return m;
}

TEST(FillElidedConstantsTest, FillsEveryElidedConstantInItsRange) {
  auto m = filled(7);
  EXPECT_EQ(findElidedConstant(*m), nullptr);
  auto it = m->functions()[0]->body().ops().begin();
  const Literal& w = (*it++)->attr("value").asDense();
  const Literal& b = (*it++)->attr("value").asDense();
  const Literal& i = (*it++)->attr("value").asDense();
  EXPECT_FALSE(w.allElementsEqual());
  for (int64_t k = 0; k < w.numElements(); ++k) {  // fan-in 3: uniform on [-1, 1)
    EXPECT_GE(w.floatAt(k), -1.0);
    EXPECT_LT(w.floatAt(k), 1.0);
  }
  for (int64_t k = 0; k < b.numElements(); ++k) {  // rank 1: [0.5, 1.5)
    EXPECT_GE(b.floatAt(k), 0.5);
    EXPECT_LT(b.floatAt(k), 1.5);
  }
  for (int64_t k = 0; k < i.numElements(); ++k) {
    EXPECT_GE(i.intAt(k), 1);
    EXPECT_LT(i.intAt(k), 8);
  }
}

TEST(FillElidedConstantsTest, TheSeedDecidesTheValues) {
  EXPECT_EQ(stablehlo::printModule(*filled(7)), stablehlo::printModule(*filled(7)));
  EXPECT_NE(stablehlo::printModule(*filled(7)), stablehlo::printModule(*filled(8)));
}

TEST(FillElidedConstantsTest, TheFilledProgramRunsToFiniteResults) {
  auto m = filled(3);
  interp::Interpreter interp(*m);
  Literal x(Type::tensor(DType::F32, {2, 3}));
  for (int64_t k = 0; k < 6; ++k) x.setFloat(k, 0.25 * static_cast<double>(k) - 0.5);
  interp::HostValues results = interp.call("main", {x});
  const Literal& y = results[0].tensor();
  for (int64_t k = 0; k < y.numElements(); ++k) EXPECT_TRUE(std::isfinite(y.floatAt(k))) << k;
}

}  // namespace
}  // namespace kiln::passes
