// The data-movement kernels: clamping of dynamic starts (also for unsigned indices),
// negative and interior padding, narrow dtypes and splats moved by raw bytes, gather and
// scatter bounds handling, scatter's fast paths against the region, sort stability.
#include <gtest/gtest.h>

#include "interp/run_program.h"

#include "interp/interpreter.h"
#include "stablehlo/parser.h"

namespace kiln::interp {
namespace {

using namespace kiln::interp::testing;  // NOLINT: run, ints, floats, bits

using I = std::vector<int64_t>;

TEST(MovementTest, DynamicSliceClampsEvenHugeUnsignedStarts) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
      %x = stablehlo.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi32>
      %big = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
      %neg = stablehlo.constant dense<-7> : tensor<i8>
      %a = stablehlo.dynamic_slice %x, %big, sizes = [2] : (tensor<5xi32>, tensor<ui64>) -> tensor<2xi32>
      %b = stablehlo.dynamic_slice %x, %neg, sizes = [2] : (tensor<5xi32>, tensor<i8>) -> tensor<2xi32>
      return %a, %b : tensor<2xi32>, tensor<2xi32>
    })");
  EXPECT_EQ(ints(r[0]), (I{3, 4}));
  EXPECT_EQ(ints(r[1]), (I{0, 1}));
}

TEST(MovementTest, DynamicUpdateSliceClampsTheStart) {
  HostValues r = run(R"(
    func.func @main() -> tensor<2x3xi16> {
      %x = stablehlo.constant dense<0> : tensor<2x3xi16>
      %u = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi16>
      %i = stablehlo.constant dense<5> : tensor<i32>
      %j = stablehlo.constant dense<2> : tensor<i32>
      %r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<2x3xi16>, tensor<1x2xi16>, tensor<i32>, tensor<i32>) -> tensor<2x3xi16>
      return %r : tensor<2x3xi16>
    })");
  EXPECT_EQ(ints(r[0]), (I{0, 0, 0, 0, 1, 2}));
}

TEST(MovementTest, PadWithNegativeEdgesAndInteriorPadding) {
  // Interior padding first ([1, p, p, 2, p, p, 3]), then low -1 and high -2 trim it.
  HostValues r = run(R"(
    func.func @main() -> tensor<4xi4> {
      %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi4>
      %p = stablehlo.constant dense<-8> : tensor<i4>
      %r = stablehlo.pad %x, %p, low = [-1], high = [-2], interior = [2] : (tensor<3xi4>, tensor<i4>) -> tensor<4xi4>
      return %r : tensor<4xi4>
    })");
  EXPECT_EQ(ints(r[0]), (I{-8, -8, 2, -8}));
}

TEST(MovementTest, TransposeReverseAndBroadcastOfNarrowTypes) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<3x2xbf16>, tensor<2x3xui4>, tensor<2x2x3xi1>) {
      %x = stablehlo.constant dense<[[1.5, 2.5, 3.5], [4.5, 5.5, 6.5]]> : tensor<2x3xbf16>
      %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xbf16>) -> tensor<3x2xbf16>
      %y = stablehlo.constant dense<[[1, 2, 3], [4, 5, 15]]> : tensor<2x3xui4>
      %v = stablehlo.reverse %y, dims = [0, 1] : tensor<2x3xui4>
      %b = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
      %w = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<3xi1>) -> tensor<2x2x3xi1>
      return %t, %v, %w : tensor<3x2xbf16>, tensor<2x3xui4>, tensor<2x2x3xi1>
    })");
  EXPECT_EQ(floats(r[0]), (std::vector<double>{1.5, 4.5, 2.5, 5.5, 3.5, 6.5}));
  EXPECT_EQ(ints(r[1]), (I{15, 5, 4, 3, 2, 1}));
  EXPECT_EQ(ints(r[2]), (I{1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1}));
}

TEST(MovementTest, IotaOfComplexAndNarrowFloats) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2x3xcomplex<f32>>, tensor<300xf8E4M3FN>) {
      %a = stablehlo.iota dim = 1 : tensor<2x3xcomplex<f32>>
      %b = stablehlo.iota dim = 0 : tensor<300xf8E4M3FN>
      return %a, %b : tensor<2x3xcomplex<f32>>, tensor<300xf8E4M3FN>
    })");
  EXPECT_EQ(r[0].tensor().complexAt(4), std::complex<double>(1, 0));
  EXPECT_EQ(r[0].tensor().complexAt(5), std::complex<double>(2, 0));
  EXPECT_EQ(r[1].tensor().floatAt(17), 16.0);  // rounded once, to nearest even
  EXPECT_EQ(r[1].tensor().floatAt(299), 288.0);
}

TEST(MovementTest, ConcatenateAlongAMiddleDimension) {
  HostValues r = run(R"(
    func.func @main() -> tensor<2x3x1xui8> {
      %a = stablehlo.constant dense<[[[1]], [[2]]]> : tensor<2x1x1xui8>
      %b = stablehlo.constant dense<[[[3], [4]], [[5], [6]]]> : tensor<2x2x1xui8>
      %r = stablehlo.concatenate %a, %b, dim = 1 : (tensor<2x1x1xui8>, tensor<2x2x1xui8>) -> tensor<2x3x1xui8>
      return %r : tensor<2x3x1xui8>
    })");
  EXPECT_EQ(ints(r[0]), (I{1, 3, 4, 2, 5, 6}));
}

TEST(MovementTest, TorchIndexSelectWithBatchDims) {
  // result[b, j] = input[b, indices[b, j]]
  HostValues r = run(R"(
    func.func @main() -> tensor<2x2xi32> {
      %x = stablehlo.constant dense<[[10, 11, 12], [20, 21, 22]]> : tensor<2x3xi32>
      %i = stablehlo.constant dense<[[2, 0], [1, 1]]> : tensor<2x2xi64>
      %r = "stablehlo.torch_index_select"(%x, %i) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<2x3xi32>, tensor<2x2xi64>) -> tensor<2x2xi32>
      return %r : tensor<2x2xi32>
    })");
  EXPECT_EQ(ints(r[0]), (I{12, 10, 21, 21}));
}

TEST(MovementTest, DynamicPadUsesItsPaddingOperands) {
  HostValues r = run(R"(
    func.func @main() -> tensor<6xi32> {
      %x = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
      %p = stablehlo.constant dense<9> : tensor<i32>
      %lo = stablehlo.constant dense<[1]> : tensor<1xi64>
      %hi = stablehlo.constant dense<[2]> : tensor<1xi64>
      %in = stablehlo.constant dense<[1]> : tensor<1xi64>
      %r = stablehlo.dynamic_pad %x, %p, %lo, %hi, %in : (tensor<2xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<6xi32>
      return %r : tensor<6xi32>
    })");
  EXPECT_EQ(ints(r[0]), (I{9, 1, 9, 2, 9, 9}));
}

TEST(MovementTest, DynamicReshapeRejectsAShapeOperandThatDisagrees) {
  EXPECT_THROW(run(R"(
    func.func @main() -> tensor<3x2xi32> {
      %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
      %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
      %r = stablehlo.dynamic_reshape %x, %s : (tensor<2x3xi32>, tensor<2xi64>) -> tensor<3x2xi32>
      return %r : tensor<3x2xi32>
    })"),
               Error);
}

TEST(GatherTest, StartsAreClampedSoTheSliceFits) {
  // Slices of 2 from a 4-vector: starts 3 and -5 clamp to 2 and 0.
  HostValues r = run(R"(
    func.func @main() -> tensor<2x2xi32> {
      %x = stablehlo.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
      %i = stablehlo.constant dense<[[3], [-5]]> : tensor<2x1xi32>
      %r = "stablehlo.gather"(%x, %i) {
        dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>,
        slice_sizes = array<i64: 2>} : (tensor<4xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
      return %r : tensor<2x2xi32>
    })");
  EXPECT_EQ(ints(r[0]), (I{2, 3, 0, 1}));
}

// Scatter of windows of 2 into a 4-vector, starting at 3 (the second element is out of
// bounds) and at -1 (the first is): per the spec only those elements are skipped.
constexpr const char* kPartialWindows = R"(
  func.func @main() -> tensor<4xf16> {
    %x = stablehlo.constant dense<[1.0, 1.0, 1.0, 1.0]> : tensor<4xf16>
    %i = stablehlo.constant dense<[[3], [-1]]> : tensor<2x1xi32>
    %u = stablehlo.constant dense<[[0.5, 0.25], [8.0, 2048.0]]> : tensor<2x2xf16>
    %r = "stablehlo.scatter"(%x, %i, %u) ({
      ^bb0(%a: tensor<f16>, %b: tensor<f16>):
        BODY
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1],
        scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xf16>, tensor<2x1xi32>, tensor<2x2xf16>) -> tensor<4xf16>
    return %r : tensor<4xf16>
  })";

std::string withBody(const std::string& body) {
  std::string text = kPartialWindows;
  return text.replace(text.find("BODY"), 4, body);
}

TEST(ScatterTest, OutOfBoundsElementsOfAWindowAreSkipped) {
  HostValues set = run(withBody("stablehlo.return %b : tensor<f16>"));
  EXPECT_EQ(floats(set[0]), (std::vector<double>{2048.0, 1.0, 1.0, 0.5}));
  HostValues add = run(withBody(
      "%s = stablehlo.add %a, %b : tensor<f16>\n stablehlo.return %s : tensor<f16>"));
  // 1 + 2048 = 2049 is not an f16: it rounds to 2048, as the region would store it.
  EXPECT_EQ(floats(add[0]), (std::vector<double>{2048.0, 1.0, 1.0, 1.5}));
  // The same sum through the region (not recognized as a plain add) agrees.
  HostValues slow = run(withBody(
      "%z = stablehlo.constant dense<0.0> : tensor<f16>\n %s = stablehlo.add %a, %b : tensor<f16>\n"
      " %t = stablehlo.add %s, %z : tensor<f16>\n stablehlo.return %t : tensor<f16>"));
  EXPECT_EQ(floats(slow[0]), floats(add[0]));
}

TEST(ScatterTest, UpdatesApplyInOrderForRepeatedIndices) {
  // (x - u) is not commutative: 10 - 1 - 2 = 7 only when updates run in index order.
  HostValues r = run(R"(
    func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
      %x = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
      %y = stablehlo.constant dense<[0, 0]> : tensor<2xi32>
      %i = stablehlo.constant dense<[[0], [0], [1]]> : tensor<3x1xi32>
      %u = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
      %r:2 = "stablehlo.scatter"(%x, %y, %i, %u, %u) ({
        ^bb0(%a: tensor<i32>, %c: tensor<i32>, %b: tensor<i32>, %d: tensor<i32>):
          %s = stablehlo.subtract %a, %b : tensor<i32>
          %t = stablehlo.add %c, %d : tensor<i32>
          stablehlo.return %s, %t : tensor<i32>, tensor<i32>
      }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
          scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}
        : (tensor<2xi32>, tensor<2xi32>, tensor<3x1xi32>, tensor<3xi32>, tensor<3xi32>) -> (tensor<2xi32>, tensor<2xi32>)
      return %r#0, %r#1 : tensor<2xi32>, tensor<2xi32>
    })");
  EXPECT_EQ(ints(r[0]), (I{7, 17}));
  EXPECT_EQ(ints(r[1]), (I{3, 3}));
}

TEST(SortTest, MultipleOperandsStableOnTheLastDimensionByDefault) {
  // Sort by the keys only; equal keys keep the order of their values.
  HostValues r = run(R"(
    func.func @main() -> (tensor<2x4xi32>, tensor<2x4xf32>) {
      %k = stablehlo.constant dense<[[2, 1, 2, 1], [0, 0, 0, -1]]> : tensor<2x4xi32>
      %v = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
      %r:2 = "stablehlo.sort"(%k, %v) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
          %p = stablehlo.compare LT, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %p : tensor<i1>
      }) : (tensor<2x4xi32>, tensor<2x4xf32>) -> (tensor<2x4xi32>, tensor<2x4xf32>)
      return %r#0, %r#1 : tensor<2x4xi32>, tensor<2x4xf32>
    })");
  EXPECT_EQ(ints(r[0]), (I{1, 1, 2, 2, -1, 0, 0, 0}));
  EXPECT_EQ(floats(r[1]), (std::vector<double>{2, 4, 1, 3, 8, 5, 6, 7}));
}

}  // namespace
}  // namespace kiln::interp
