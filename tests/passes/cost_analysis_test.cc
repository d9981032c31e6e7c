// Flop and byte counts: 2 per multiply-add of a dot, 1 per element of other computing
// ops (a reduce per input element), callees counted at their call; bytes are the
// parameters and results.
#include "passes/cost_analysis.h"

#include <gtest/gtest.h>

#include "stablehlo/parser.h"

namespace kiln::passes {
namespace {

TEST(CostAnalysisTest, CountsDotsElementwiseReducesAndCallees) {
  auto m = stablehlo::parseModule(R"(
    func.func private @relu(%h: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<4x8xf32>
      %r = stablehlo.maximum %h, %z : tensor<4x8xf32>
      return %r : tensor<4x8xf32>
    }
    func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4xf32> {
      %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
      %a = func.call @relu(%h) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
      return %s : tensor<4xf32>
    })");
  Cost c = costOf(*m, *m->lookup("main"));
  EXPECT_EQ(c.flops, 2.0 * 4 * 8 * 16 + 4 * 8 + 4 * 8);  // dot, relu's maximum, reduce
  EXPECT_EQ(c.bytes, 4.0 * (4 * 16 + 16 * 8 + 4));
}

}  // namespace
}  // namespace kiln::passes
