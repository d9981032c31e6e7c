// Elementwise kernels and checks on the edge cases the spec leaves to implementations or
// that are easy to get wrong: narrow integers, integer division, saturating converts,
// reduce_precision, totalOrder, and the checker's ULP and tolerance rules.
#include <gtest/gtest.h>

#include "interp/run_program.h"

#include "interp/interpreter.h"
#include "stablehlo/parser.h"

namespace kiln::interp {
namespace {

using namespace kiln::interp::testing;  // NOLINT: run, ints, floats, bits

TEST(ElementwiseTest, NarrowIntegersShiftAndCountInTheirOwnWidth) {
  HostValues r = run(R"(func.func @main() -> (tensor<3xi4>, tensor<3xi4>, tensor<3xi4>, tensor<3xui4>) {
    %x = stablehlo.constant dense<[-1, 7, -8]> : tensor<3xi4>
    %s = stablehlo.constant dense<[1, 1, 5]> : tensor<3xi4>
    %0 = stablehlo.shift_right_logical %x, %s : tensor<3xi4>
    %1 = stablehlo.shift_right_arithmetic %x, %s : tensor<3xi4>
    %2 = stablehlo.popcnt %x : tensor<3xi4>
    %u = stablehlo.constant dense<[15, 1, 8]> : tensor<3xui4>
    %3 = stablehlo.count_leading_zeros %u : tensor<3xui4>
    return %0, %1, %2, %3 : tensor<3xi4>, tensor<3xi4>, tensor<3xi4>, tensor<3xui4>
  })");
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{7, 3, 0}));   // 0b1111 >> 1 = 0b0111; shift >= 4 gives 0
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{-1, 3, -1}));  // sign fill
  EXPECT_EQ(ints(r[2]), (std::vector<int64_t>{4, 3, 1}));
  EXPECT_EQ(ints(r[3]), (std::vector<int64_t>{0, 3, 0}));
}

TEST(ElementwiseTest, IntegerDivisionEdgeCases) {
  HostValues r = run(R"(func.func @main() -> (tensor<3xi8>, tensor<3xi8>, tensor<2xui8>) {
    %a = stablehlo.constant dense<[7, -128, 5]> : tensor<3xi8>
    %b = stablehlo.constant dense<[0, -1, -2]> : tensor<3xi8>
    %0 = stablehlo.divide %a, %b : tensor<3xi8>
    %1 = stablehlo.remainder %a, %b : tensor<3xi8>
    %c = stablehlo.constant dense<[9, 250]> : tensor<2xui8>
    %z = stablehlo.constant dense<[0, 0]> : tensor<2xui8>
    %2 = stablehlo.divide %c, %z : tensor<2xui8>
    return %0, %1, %2 : tensor<3xi8>, tensor<3xi8>, tensor<2xui8>
  })");
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{-1, -128, -2}));
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{7, 0, 1}));
  EXPECT_EQ(ints(r[2]), (std::vector<int64_t>{255, 255}));
}

TEST(ElementwiseTest, ConvertsSaturateAndRound) {
  HostValues r = run(R"(func.func @main() -> (tensor<5xi8>, tensor<2xf16>, tensor<2xui8>) {
    %x = stablehlo.constant dense<[1.0e3, -1.0e3, 0x7FC00000, -2.7, 2.7]> : tensor<5xf32>
    %0 = stablehlo.convert %x : (tensor<5xf32>) -> tensor<5xi8>
    %y = stablehlo.constant dense<[65520.0, 0.1]> : tensor<2xf64>
    %1 = stablehlo.convert %y : (tensor<2xf64>) -> tensor<2xf16>
    %i = stablehlo.constant dense<[300, -1]> : tensor<2xi32>
    %2 = stablehlo.convert %i : (tensor<2xi32>) -> tensor<2xui8>
    return %0, %1, %2 : tensor<5xi8>, tensor<2xf16>, tensor<2xui8>
  })");
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{127, -128, 0, -2, 2}));
  EXPECT_TRUE(std::isinf(r[1].tensor().floatAt(0)));
  EXPECT_EQ(r[1].tensor().bitsAt(1), 0x2E66u);
  EXPECT_EQ(ints(r[2]), (std::vector<int64_t>{44, 255}));  // integers wrap
}

TEST(ElementwiseTest, ReducePrecisionOverflowsUnderflowsAndRounds) {
  HostValues r = run(R"(func.func @main() -> tensor<5xf32> {
    %x = stablehlo.constant dense<[1.0e5, 1.0e-8, 1.0006103515625, 1.00048828125, 0x7FC00000]> : tensor<5xf32>
    %0 = stablehlo.reduce_precision %x, format = e5m10 : tensor<5xf32>
    return %0 : tensor<5xf32>
  })");
  const Literal& y = r[0].tensor();
  EXPECT_TRUE(std::isinf(y.floatAt(0)));        // beyond f16's range
  EXPECT_EQ(y.floatAt(1), 0.0);                 // below its smallest normal
  EXPECT_EQ(y.floatAt(2), 1.0009765625);        // 1 + 2^-11 + 2^-13 rounds up to 1 + 2^-10
  EXPECT_EQ(y.floatAt(3), 1.0);                 // the tie 1 + 2^-11 rounds to even
  EXPECT_TRUE(std::isnan(y.floatAt(4)));
}

TEST(ElementwiseTest, TotalOrderComparisons) {
  HostValues r = run(R"(func.func @main() -> (tensor<3xi1>, tensor<3xi1>) {
    %a = stablehlo.constant dense<[-0.0, 0x7FC00000, 1.0]> : tensor<3xf32>
    %b = stablehlo.constant dense<[0.0, 0x7FC00000, 0xFFC00000]> : tensor<3xf32>
    %0 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %1 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    return %0, %1 : tensor<3xi1>, tensor<3xi1>
  })");
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{1, 0, 0}));  // -0 < +0; -NaN is the least value
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{1, 0, 0}));  // IEEE: -0 == +0, NaN != NaN
}

void expectCheckFails(const std::string& body, const std::string& message) {
  try {
    run("func.func @main() {\n" + body + "\n  return\n}");
    FAIL() << "check passed: " << body;
  } catch (const CheckFailed& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(ChecksTest, FollowTheReferenceChecker) {
  // ULP distance counts through zero: -1 ulp and +4 ulp subnormals are 5 apart.
  run(R"(func.func @main() {
    %a = stablehlo.constant dense<[0x80000001, 0.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[0x00000004, -0.0]> : tensor<2xf32>
    check.expect_close %a, %b, max_ulp_difference = 5 : tensor<2xf32>, tensor<2xf32>
    return
  })");
  expectCheckFails(R"(  %a = stablehlo.constant dense<[0x80000001]> : tensor<1xf32>
  %b = stablehlo.constant dense<[0x00000004]> : tensor<1xf32>
  check.expect_close %a, %b, max_ulp_difference = 4 : tensor<1xf32>, tensor<1xf32>)",
                   "5 ULP");
  // Absolute tolerance, but values of different signs never match.
  expectCheckFails(R"(  %a = stablehlo.constant dense<[-1.0e-9]> : tensor<1xf64>
  check.expect_almost_eq_const %a, dense<[1.0e-9]> : tensor<1xf64>)",
                   "element [0]");
  // expect_eq on floats is IEEE equality: -0 equals +0, NaN never equals NaN.
  run(R"(func.func @main() {
    %a = stablehlo.constant dense<-0.0> : tensor<f32>
    check.expect_eq_const %a, dense<0.0> : tensor<f32>
    return
  })");
  expectCheckFails(R"(  %a = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  check.expect_eq_const %a, dense<0x7FC00000> : tensor<f32>)",
                   "expected");
}

}  // namespace
}  // namespace kiln::interp
