// lower-chlo: every CHLO op with a decomposition becomes StableHLO primitives computing
// the same bits on special inputs (NaN, ±0, ±inf, extremes); the keep set and element
// types a decomposition does not cover leave the op in place.
#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace kiln::passes {
namespace {

using test_util::count;
using test_util::runAndCompare;

std::string unary(const std::string& op, const std::string& type) {
  return "func.func @main(%x: " + type + ") -> " + type + " {\n  %0 = " + op + " %x : " + type +
         " -> " + type + "\n  return %0 : " + type + "\n}\n";
}

// A binary op over two values of `type`, written in the generic form (every op has one).
std::string binary(const std::string& op, const std::string& type) {
  return "func.func @main(%x: " + type + ", %y: " + type + ") -> " + type + " {\n  %0 = \"" + op +
         "\"(%x, %y) : (" + type + ", " + type + ") -> " + type + "\n  return %0 : " + type + "\n}\n";
}

TEST(LowerChloTest, SquareOfRealsAndIntegers) {
  for (const char* t : {"tensor<8xf32>", "tensor<8xf16>", "tensor<8xbf16>", "tensor<8xf64>",
                        "tensor<8xi32>", "tensor<8xi8>"}) {
    auto m = runAndCompare(unary("chlo.square", t), {"lower-chlo"});
    EXPECT_EQ(count(*m, OpCode::ChloSquare), 0) << t;
    EXPECT_EQ(count(*m, OpCode::Multiply), 1) << t;
  }
  // Complex square stays: the kernel's accurate form is not a product of parts.
  auto m = runAndCompare(unary("chlo.square", "tensor<4xcomplex<f32>>"), {"lower-chlo"});
  EXPECT_EQ(count(*m, OpCode::ChloSquare), 1);
}

TEST(LowerChloTest, MulhiUpTo32Bits) {
  for (const char* t : {"tensor<8xi32>", "tensor<8xui32>", "tensor<8xi16>", "tensor<8xui8>"}) {
    auto m = runAndCompare(binary("chlo.mulhi", t), {"lower-chlo"});
    EXPECT_EQ(count(*m, OpCode::ChloMulhi), 0) << t;
  }
  auto wide = runAndCompare(binary("chlo.mulhi", "tensor<4xi64>"), {"lower-chlo"});
  EXPECT_EQ(count(*wide, OpCode::ChloMulhi), 1);
}

TEST(LowerChloTest, NextAfterOnTheBits) {
  // Special values on both sides: NaN, ±0, ±inf, the largest and smallest numbers.
  for (const char* t : {"tensor<16xf32>", "tensor<16xf64>", "tensor<16xf16>", "tensor<16xbf16>"}) {
    auto m = runAndCompare(binary("chlo.next_after", t), {"lower-chlo"});
    EXPECT_EQ(count(*m, OpCode::ChloNextAfter), 0) << t;
  }
}

TEST(LowerChloTest, BroadcastAdd) {
  std::string text =
      "func.func @main(%x: tensor<3x1xf32>, %y: tensor<4xf32>) -> tensor<3x4xf32> {\n"
      "  %0 = chlo.broadcast_add %x, %y : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>\n"
      "  return %0 : tensor<3x4xf32>\n}\n";
  auto m = runAndCompare(text, {"lower-chlo"});
  EXPECT_EQ(count(*m, OpCode::ChloBroadcastAdd), 0);
  EXPECT_EQ(count(*m, OpCode::BroadcastInDim), 2);
}

TEST(LowerChloTest, TopKWithTiesAndNaN) {
  // Special inputs hold NaN, ±inf, ±0 and repeats: the sort must rank them as the kernel.
  for (const char* t : {"f32", "i32", "ui8"}) {
    std::string x = std::string("tensor<3x8x") + t + ">";
    std::string v = std::string("tensor<3x3x") + t + ">";
    std::string text = "func.func @main(%x: " + x + ") -> (" + v + ", tensor<3x3xi32>) {\n" +
                       "  %0:2 = chlo.top_k(%x, k = 3) : " + x + " -> (" + v + ", tensor<3x3xi32>)\n" +
                       "  return %0#0, %0#1 : " + v + ", tensor<3x3xi32>\n}\n";
    auto m = runAndCompare(text, {"lower-chlo"});
    EXPECT_EQ(count(*m, OpCode::ChloTopK), 0) << t;
    EXPECT_EQ(count(*m, OpCode::Sort), 1) << t;
  }
}

TEST(LowerChloTest, KeepsWhatTheBackendAsksToKeep) {
  PassContext ctx;
  ctx.options.keepChlo = {"chlo.square"};
  auto m = runAndCompare(unary("chlo.square", "tensor<8xf32>"), {"lower-chlo"}, ctx);
  EXPECT_EQ(count(*m, OpCode::ChloSquare), 1);
  // Ops without a decomposition stay too (erf is a primitive kernel).
  EXPECT_EQ(count(*runAndCompare(unary("chlo.erf", "tensor<8xf32>"), {"lower-chlo"}), OpCode::ChloErf), 1);
}

}  // namespace
}  // namespace kiln::passes
