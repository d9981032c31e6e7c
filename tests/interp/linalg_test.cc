// The linear-algebra kernels: accumulation in the result type, dimension orders of
// dot_general and convolution, window reversal, FFT round trips, triangular solves on
// each side, Cholesky factors, batch norm and the ragged_dot modes.
#include <gtest/gtest.h>

#include "interp/run_program.h"

#include <cmath>

#include "interp/interpreter.h"
#include "stablehlo/parser.h"

namespace kiln::interp {
namespace {

using namespace kiln::interp::testing;  // NOLINT: run, ints, floats, bits

void expectNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(LinalgTest, DotAccumulatesInTheWiderResultType) {
  HostValues r = run(R"(
    func.func @main() -> tensor<i32> {
      %a = stablehlo.constant dense<[100, 100, -128]> : tensor<3xi8>
      %r = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0] : (tensor<3xi8>, tensor<3xi8>) -> tensor<i32>
      return %r : tensor<i32>
    })");
  EXPECT_EQ(ints(r[0]), std::vector<int64_t>{10000 + 10000 + 16384});
}

TEST(LinalgTest, DotGeneralOrdersBatchThenLhsThenRhsDims) {
  // lhs [k=2, b=2, m=1], rhs [n=2, b=2, k=2] -> result [b, m, n].
  HostValues r = run(R"(
    func.func @main() -> tensor<2x1x2xf32> {
      %l = stablehlo.constant dense<[[[1.0], [2.0]], [[3.0], [4.0]]]> : tensor<2x2x1xf32>
      %r = stablehlo.constant dense<[[[1.0, 0.0], [1.0, 1.0]], [[0.0, 1.0], [2.0, 0.0]]]> : tensor<2x2x2xf32>
      %d = stablehlo.dot_general %l, %r, batching_dims = [1] x [1], contracting_dims = [0] x [2]
        : (tensor<2x2x1xf32>, tensor<2x2x2xf32>) -> tensor<2x1x2xf32>
      return %d : tensor<2x1x2xf32>
    })");
  // b=0: lhs k-vector [1, 3]; rhs n=0: [1, 0] -> 1, n=1: [0, 1] -> 3.
  // b=1: lhs [2, 4]; rhs n=0: [1, 1] -> 6, n=1: [2, 0] -> 4.
  EXPECT_EQ(floats(r[0]), (std::vector<double>{1, 3, 6, 4}));
}

TEST(LinalgTest, ConvolutionWindowReversalFlipsTheKernel) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<1x1x3xf32>, tensor<1x1x3xf32>) {
      %x = stablehlo.constant dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
      %k = stablehlo.constant dense<[[[1.0, 10.0]]]> : tensor<1x1x2xf32>
      %a = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
        : (tensor<1x1x4xf32>, tensor<1x1x2xf32>) -> tensor<1x1x3xf32>
      %b = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {reverse = [true]}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
        : (tensor<1x1x4xf32>, tensor<1x1x2xf32>) -> tensor<1x1x3xf32>
      return %a, %b : tensor<1x1x3xf32>, tensor<1x1x3xf32>
    })");
  EXPECT_EQ(floats(r[0]), (std::vector<double>{21, 32, 43}));
  EXPECT_EQ(floats(r[1]), (std::vector<double>{12, 23, 34}));
}

TEST(LinalgTest, ConvolutionRhsDilationAndNegativePadding) {
  HostValues r = run(R"(
    func.func @main() -> tensor<1x1x2xi32> {
      %x = stablehlo.constant dense<[[[1, 2, 3, 4, 5, 6]]]> : tensor<1x1x6xi32>
      %k = stablehlo.constant dense<[[[1, 100]]]> : tensor<1x1x2xi32>
      %r = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0],
        window = {pad = [[-1, 0]], rhs_dilate = [2], stride = [2]}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
        : (tensor<1x1x6xi32>, tensor<1x1x2xi32>) -> tensor<1x1x2xi32>
      return %r : tensor<1x1x2xi32>
    })");
  // Input after padding: [2, 3, 4, 5, 6]; windows at 0 and 2 read (2, 4) and (4, 6).
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{402, 604}));
}

// Padding is zeros multiplied by the kernel element of their window position, in every
// dimension: 0 * inf is NaN even where the position is outside along the first one.
TEST(LinalgTest, ConvolutionPaddingMultipliesItsOwnKernelElement) {
  HostValues r = run(R"(
    func.func @main() -> tensor<1x1x1x1xf32> {
      %x = stablehlo.constant dense<1.0> : tensor<1x1x1x1xf32>
      %k = stablehlo.constant dense<[[[[1.0, 0x7F800000], [1.0, 1.0]]]]> : tensor<1x1x2x2xf32>
      %r = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],
        window = {pad = [[1, 0], [1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
        : (tensor<1x1x1x1xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>
      return %r : tensor<1x1x1x1xf32>
    })");
  // Window position (0, 1) is padding in both dimensions and meets the inf.
  EXPECT_TRUE(std::isnan(floats(r[0])[0]));
}

TEST(LinalgTest, RfftThenIrfftRoundTripsAnOddLength) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2x5xf64>, tensor<2x3xcomplex<f64>>) {
      %x = stablehlo.constant dense<[[1.0, -2.0, 3.5, 0.25, 4.0], [0.0, 1.0, 0.0, 0.0, 0.0]]> : tensor<2x5xf64>
      %f = stablehlo.fft %x, type = RFFT, length = [5] : (tensor<2x5xf64>) -> tensor<2x3xcomplex<f64>>
      %y = stablehlo.fft %f, type = IRFFT, length = [5] : (tensor<2x3xcomplex<f64>>) -> tensor<2x5xf64>
      return %y, %f : tensor<2x5xf64>, tensor<2x3xcomplex<f64>>
    })");
  expectNear(floats(r[0]), {1.0, -2.0, 3.5, 0.25, 4.0, 0.0, 1.0, 0.0, 0.0, 0.0}, 1e-12);
  // The spectrum of a unit impulse at 1: exp(-2πi k / 5).
  std::complex<double> c = r[1].tensor().complexAt(4);
  EXPECT_NEAR(c.real(), std::cos(2 * M_PI / 5), 1e-15);
  EXPECT_NEAR(c.imag(), -std::sin(2 * M_PI / 5), 1e-15);
}

TEST(LinalgTest, TriangularSolveRightSideTransposed) {
  // x op(a) = b with op(a) = a^T and a lower: op(a) is upper [[2, 1], [0, 4]].
  HostValues r = run(R"(
    func.func @main() -> tensor<1x2xf64> {
      %a = stablehlo.constant dense<[[2.0, 99.0], [1.0, 4.0]]> : tensor<2x2xf64>
      %b = stablehlo.constant dense<[[4.0, 10.0]]> : tensor<1x2xf64>
      %x = "stablehlo.triangular_solve"(%a, %b) {left_side = false, lower = true, unit_diagonal = false,
        transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<2x2xf64>, tensor<1x2xf64>) -> tensor<1x2xf64>
      return %x : tensor<1x2xf64>
    })");
  // [x0, x1] [[2, 1], [0, 4]] = [2 x0, x0 + 4 x1] = [4, 10] -> x = [2, 2].
  EXPECT_EQ(floats(r[0]), (std::vector<double>{2.0, 2.0}));
}

TEST(LinalgTest, CholeskyUpperIsTheAdjointOfLower) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<3x3xf64>, tensor<3x3xf64>) {
      %a = stablehlo.constant dense<[[4.0, 12.0, -16.0], [12.0, 37.0, -43.0], [-16.0, -43.0, 98.0]]> : tensor<3x3xf64>
      %l = stablehlo.cholesky %a, lower = true : tensor<3x3xf64>
      %u = stablehlo.cholesky %a : tensor<3x3xf64>
      return %l, %u : tensor<3x3xf64>, tensor<3x3xf64>
    })");
  EXPECT_EQ(floats(r[0]), (std::vector<double>{2, 0, 0, 6, 1, 0, -8, 5, 3}));
  EXPECT_EQ(floats(r[1]), (std::vector<double>{2, 6, -8, 0, 1, 5, 0, 0, 3}));
}

TEST(LinalgTest, BatchNormTrainingMeanAndVariancePerFeature) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) {
      %x = stablehlo.constant dense<[[1.0, 10.0], [3.0, 30.0]]> : tensor<2x2xf32>
      %s = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %o = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
      %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 0.0 : f32, feature_index = 1 : i64}
        : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
      return %y, %m, %v : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>
    })");
  EXPECT_EQ(floats(r[0]), (std::vector<double>{-1, -1, 1, 3}));
  EXPECT_EQ(floats(r[1]), (std::vector<double>{2, 20}));
  EXPECT_EQ(floats(r[2]), (std::vector<double>{1, 100}));
}

TEST(LinalgTest, BatchNormGradMatchesTheSpecExample) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) {
      %x = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>
      %s = stablehlo.constant dense<1.0> : tensor<2xf64>
      %m = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>
      %v = stablehlo.constant dense<1.0> : tensor<2xf64>
      %dy = stablehlo.constant dense<0.1> : tensor<2x2x2xf64>
      %a, %b, %c = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %dy) {epsilon = 0.0 : f32, feature_index = 2 : i64}
        : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>)
        -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
      return %a, %b, %c : tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>
    })");
  expectNear(floats(r[0]), std::vector<double>(8, 0.0), 1e-15);
  expectNear(floats(r[1]), {0.0, 0.0}, 1e-15);
  expectNear(floats(r[2]), {0.4, 0.4}, 1e-15);
}

TEST(LinalgTest, HouseholderProductAppliesTheReflectorsInOrder) {
  // One reflector v = [1, 2], tau = 0.5: Q e0 = e0 - 0.5 v = [0.5, -1].
  HostValues r = run(R"(
    func.func @main() -> tensor<2x1xf32> {
      %a = stablehlo.constant dense<[[7.0], [2.0]]> : tensor<2x1xf32>
      %t = stablehlo.constant dense<[0.5]> : tensor<1xf32>
      %q = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%a, %t) : (tensor<2x1xf32>, tensor<1xf32>) -> tensor<2x1xf32>
      return %q : tensor<2x1xf32>
    })");
  EXPECT_EQ(floats(r[0]), (std::vector<double>{0.5, -1.0}));
}

TEST(LinalgTest, RaggedDotOverAContractingDimensionAddsAGroupDimension) {
  HostValues r = run(R"(
    func.func @main() -> tensor<2x1x1xf32> {
      %l = stablehlo.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
      %r = stablehlo.constant dense<[[1.0], [10.0], [100.0]]> : tensor<3x1xf32>
      %g = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
      %d = "chlo.ragged_dot"(%l, %r, %g) {
        ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [],
          lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],
          lhs_ragged_dimensions = [1], rhs_group_dimensions = []>,
        precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
      } : (tensor<1x3xf32>, tensor<3x1xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
      return %d : tensor<2x1x1xf32>
    })");
  EXPECT_EQ(floats(r[0]), (std::vector<double>{1, 320}));
}

}  // namespace
}  // namespace kiln::interp
