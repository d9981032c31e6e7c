// The region-based reduction kernels: fold order (ir/reduction_order.h) and per-step rounding (the typed fast
// path must match running the body), padding and dilation of windows, ties in
// select_and_scatter, and chlo.scan's multi-carry and reverse forms.
#include <gtest/gtest.h>

#include "interp/run_program.h"

#include <cmath>

#include "interp/interpreter.h"
#include "stablehlo/parser.h"

namespace kiln::interp {
namespace {

using namespace kiln::interp::testing;  // NOLINT: run, ints, floats, bits

// A sum of f16 values whose running total must be rounded to f16 after every step:
// 2048 + 1 rounds back to 2048 each time, while an f32 total would reach 2050.
constexpr const char* kF16Sum = R"(
  func.func @main() -> tensor<f16> {
    %x = stablehlo.constant dense<[2048.0, 1.0, 1.0]> : tensor<3xf16>
    %z = stablehlo.constant dense<0.0> : tensor<f16>
    %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf16>, tensor<f16>) -> tensor<f16>
    return %r : tensor<f16>
  })";

TEST(ReductionTest, FastPathRoundsEveryStepLikeTheRegion) {
  EXPECT_EQ(floats(run(kF16Sum)[0]), std::vector<double>{2048.0});
  // The same body written so that it is not recognized: the region runs per element.
  HostValues slow = run(R"(
    func.func @main() -> tensor<f16> {
      %x = stablehlo.constant dense<[2048.0, 1.0, 1.0]> : tensor<3xf16>
      %z = stablehlo.constant dense<0.0> : tensor<f16>
      %r = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<3xf16>, tensor<f16>) -> tensor<f16>
        reducer(%a: tensor<f16>, %b: tensor<f16>) {
          %s = stablehlo.add %a, %b : tensor<f16>
          %t = stablehlo.add %s, %z : tensor<f16>
          stablehlo.return %t : tensor<f16>
        }
      return %r : tensor<f16>
    })");
  EXPECT_EQ(floats(slow[0]), std::vector<double>{2048.0});
}

// The order of ir/reduction_order.h, pinned: 2^24 and then ones. A left fold never moves
// from 2^24 (2^24 + 1 rounds back to it in f32). In lanes, the ones of lanes 1..15 add up
// among themselves first: 17 elements give 2^24 + 14 (lane 0 still drops its one), and
// 4097 elements give 2^24 + 3840 from the first chunk (lane 0 drops 255 ones, the other
// lanes hold 256 each) plus the second chunk's one, which rounds away.
TEST(ReductionTest, SumsFoldInLanesAndChunks) {
  auto sumOfOnesAfter2To24 = [](int ones, bool recognized) {
    std::string n = std::to_string(ones + 1);
    std::string body = recognized ? "applies stablehlo.add across dimensions = [0]"
                                  : "across dimensions = [0]";
    std::string region = recognized ? "" : R"(
        reducer(%a: tensor<f32>, %b: tensor<f32>) {
          %s = stablehlo.add %a, %b : tensor<f32>
          %t = stablehlo.add %s, %z : tensor<f32>
          stablehlo.return %t : tensor<f32>
        })";
    return floats(run("func.func @main() -> tensor<f32> {\n"
                      "  %i = stablehlo.iota dim = 0 : tensor<" + n + "xi32>\n"
                      "  %zero = stablehlo.constant dense<0> : tensor<" + n + "xi32>\n"
                      "  %first = stablehlo.compare EQ, %i, %zero : (tensor<" + n + "xi32>, tensor<" + n + "xi32>) -> tensor<" + n + "xi1>\n"
                      "  %big = stablehlo.constant dense<16777216.0> : tensor<" + n + "xf32>\n"
                      "  %one = stablehlo.constant dense<1.0> : tensor<" + n + "xf32>\n"
                      "  %x = stablehlo.select %first, %big, %one : tensor<" + n + "xi1>, tensor<" + n + "xf32>\n"
                      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                      "  %r = stablehlo.reduce(%x init: %z) " + body + " : (tensor<" + n + "xf32>, tensor<f32>) -> tensor<f32>" +
                      region + "\n  return %r : tensor<f32>\n}\n")[0])[0];
  };
  EXPECT_EQ(sumOfOnesAfter2To24(16, true), 16777216.0 + 14);
  EXPECT_EQ(sumOfOnesAfter2To24(4096, true), 16777216.0 + 3840);
  // A body that is not one op runs as a region, folded left to right.
  EXPECT_EQ(sumOfOnesAfter2To24(16, false), 16777216.0);
}

TEST(ReductionTest, MaxPropagatesNaNAndOrdersSignedZeros) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2xf32>) {
      %x = stablehlo.constant dense<[[1.0, 0x7FC00000, 3.0], [-0.0, 0.0, -0.0]]> : tensor<2x3xf32>
      %z = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %r = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
      return %r : tensor<2xf32>
    })");
  std::vector<double> v = floats(r[0]);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0.0);
  EXPECT_FALSE(std::signbit(v[1]));
}

TEST(ReductionTest, VariadicReduceIsAnArgmaxFold) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
      %x = stablehlo.constant dense<[[3, 7, 7, 1], [5, 2, 9, 9]]> : tensor<2x4xi32>
      %i = stablehlo.constant dense<[[0, 1, 2, 3], [0, 1, 2, 3]]> : tensor<2x4xi32>
      %lo = stablehlo.constant dense<-2147483648> : tensor<i32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %r:2 = stablehlo.reduce(%x init: %lo), (%i init: %zero) across dimensions = [1] : (tensor<2x4xi32>, tensor<2x4xi32>, tensor<i32>, tensor<i32>) -> (tensor<2xi32>, tensor<2xi32>)
        reducer(%av: tensor<i32>, %bv: tensor<i32>) (%ai: tensor<i32>, %bi: tensor<i32>) {
          %gt = stablehlo.compare GT, %bv, %av : (tensor<i32>, tensor<i32>) -> tensor<i1>
          %v = stablehlo.select %gt, %bv, %av : tensor<i1>, tensor<i32>
          %k = stablehlo.select %gt, %bi, %ai : tensor<i1>, tensor<i32>
          stablehlo.return %v, %k : tensor<i32>, tensor<i32>
        }
      return %r#0, %r#1 : tensor<2xi32>, tensor<2xi32>
    })");
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{7, 9}));
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{1, 2}));  // the first of equal maxima
}

TEST(ReductionTest, ReduceWindowFoldsPaddingAsInitValues) {
  // Padding holds the init value (10), which the window's sum includes.
  HostValues r = run(R"(
    func.func @main() -> tensor<3xi64> {
      %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
      %init = stablehlo.constant dense<10> : tensor<i64>
      %r = "stablehlo.reduce_window"(%x, %init) ({
        ^bb0(%a: tensor<i64>, %b: tensor<i64>):
          %s = stablehlo.add %a, %b : tensor<i64>
          stablehlo.return %s : tensor<i64>
      }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>,
          base_dilations = array<i64: 2>, padding = dense<[[1, 1]]> : tensor<1x2xi64>}
        : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
      return %r : tensor<3xi64>
    })");
  // Padded, dilated input: [p, 1, h, 2, h, 3, p] (p padding, h holes: both init values).
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{10 + 10 + 1, 10 + 10 + 2, 10 + 10 + 3}));
}

TEST(ReductionTest, SelectAndScatterKeepsTheFirstOfTiesWithGE) {
  HostValues r = run(R"(
    func.func @main() -> tensor<4xi32> {
      %x = stablehlo.constant dense<[5, 5, 2, 7]> : tensor<4xi32>
      %src = stablehlo.constant dense<[1, 10, 100]> : tensor<3xi32>
      %init = stablehlo.constant dense<0> : tensor<i32>
      %r = "stablehlo.select_and_scatter"(%x, %src, %init) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %c = stablehlo.compare GE, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %c : tensor<i1>
      }, {
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %s = stablehlo.add %a, %b : tensor<i32>
          stablehlo.return %s : tensor<i32>
      }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>}
        : (tensor<4xi32>, tensor<3xi32>, tensor<i32>) -> tensor<4xi32>
      return %r : tensor<4xi32>
    })");
  // Windows [5,5] -> index 0, [5,2] -> index 1, [2,7] -> index 3.
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{1, 10, 0, 100}));
}

TEST(ReductionTest, ScanReverseWithTwoCarries) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2x3xi32>, tensor<2xi32>, tensor<2xi32>) {
      %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
      %zero = stablehlo.constant dense<0> : tensor<2xi32>
      %one = stablehlo.constant dense<1> : tensor<2xi32>
      %r:3 = chlo.scan(%x) inits(%zero, %one) dimension=1 attributes {is_reverse = true} {
      ^bb0(%in: tensor<2xi32>, %sum: tensor<2xi32>, %prod: tensor<2xi32>):
        %s = stablehlo.add %in, %sum : tensor<2xi32>
        %p = stablehlo.multiply %in, %prod : tensor<2xi32>
        stablehlo.return %s, %s, %p : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
      } : (tensor<2x3xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>, tensor<2xi32>)
      return %r#0, %r#1, %r#2 : tensor<2x3xi32>, tensor<2xi32>, tensor<2xi32>
    })");
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{6, 15}));
  EXPECT_EQ(ints(r[2]), (std::vector<int64_t>{6, 120}));
}

TEST(ReductionTest, MapCallsTheBodyPerElement) {
  HostValues r = run(R"(
    func.func @main() -> tensor<3xf32> {
      %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
      %b = stablehlo.constant dense<[4.0, 5.0, 6.0]> : tensor<3xf32>
      %r = "stablehlo.map"(%a, %b) ({
        ^bb0(%x: tensor<f32>, %y: tensor<f32>):
          %m = stablehlo.multiply %x, %y : tensor<f32>
          %s = stablehlo.add %m, %x : tensor<f32>
          stablehlo.return %s : tensor<f32>
      }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      return %r : tensor<3xf32>
    })");
  EXPECT_EQ(floats(r[0]), (std::vector<double>{5.0, 12.0, 21.0}));
}

}  // namespace
}  // namespace kiln::interp
