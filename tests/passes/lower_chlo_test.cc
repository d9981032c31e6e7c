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

// Every composite chlo.broadcast_* op lowers to broadcasts and its primitive, and
// computes what the explicit program does (written here by hand, not by the pass).
TEST(LowerChloTest, BroadcastingCompositesMatchExplicitBroadcasts) {
  int tested = 0;
  for (const OpInfo& info : allOps()) {
    if (!info.has(kBroadcasting)) continue;
    ++tested;
    std::string primitive = "stablehlo." + std::string(info.name.substr(info.name.find('_') + 1));
    ASSERT_TRUE(lookupOp(primitive)) << primitive;
    bool ints = info.elements == ElementClass::Int || info.elements == ElementClass::IntOrBool;
    std::string e = ints ? "i32" : "f32";
    std::string x = "tensor<3x1x" + e + ">", y = "tensor<4x" + e + ">", out = "tensor<3x4x" + e + ">";
    std::string head = "func.func @main(%x: " + x + ", %y: " + y + ") -> " + out + " {\n";
    std::string composite = head + "  %0 = \"" + std::string(info.name) + "\"(%x, %y) : (" + x + ", " + y +
                            ") -> " + out + "\n  return %0 : " + out + "\n}\n";
    std::string explicitForm =
        head + "  %a = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (" + x + ") -> " + out + "\n" +
        "  %b = stablehlo.broadcast_in_dim %y, dims = [1] : (" + y + ") -> " + out + "\n" +
        "  %0 = \"" + primitive + "\"(%a, %b) : (" + out + ", " + out + ") -> " + out + "\n" +
        "  return %0 : " + out + "\n}\n";
    auto m = runAndCompare(composite, {"lower-chlo"});
    EXPECT_EQ(count(*m, info.code), 0) << info.name;
    EXPECT_EQ(count(*m, *lookupOp(primitive)), 1) << info.name;
    auto a = stablehlo::parseModule(composite);
    auto b = stablehlo::parseModule(explicitForm);
    interp::HostValues args = {test_util::specialValues(Type::tensor(ints ? DType::I32 : DType::F32, {3, 1}), 0),
                               test_util::specialValues(Type::tensor(ints ? DType::I32 : DType::F32, {4}), 1)};
    test_util::expectBitIdentical(interp::Interpreter(*b).call("main", args),
                                  interp::Interpreter(*a).call("main", args), composite);
  }
  EXPECT_EQ(tested, 15);
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
