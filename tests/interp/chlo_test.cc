// The CHLO kernels and the accurate math behind them: complex functions at the points
// where the textbook formulas cancel or overflow (checked against mpmath values, to the
// ULP bounds of the conformance suites), the special functions, and the structural ops
// (top_k ties and NaN order, next_after at zero, mulhi sign handling, broadcast_add).
#include <gtest/gtest.h>

#include "interp/run_program.h"

#include <bit>
#include <cmath>
#include <cstdint>

#include "kernels/complex_math.h"
#include "interp/interpreter.h"
#include "interp/special_functions.h"
#include "stablehlo/parser.h"

namespace kiln::interp {
namespace {

using namespace kiln::interp::testing;  // NOLINT: run, ints, floats, bits
using namespace kiln::kernels;          // NOLINT: the accurate complex functions

// The distance in representable doubles (through zero when the signs differ).
uint64_t ulpDistance(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (!std::isfinite(a) || !std::isfinite(b)) return a == b ? 0 : UINT64_MAX;
  uint64_t ua = std::bit_cast<uint64_t>(std::fabs(a)), ub = std::bit_cast<uint64_t>(std::fabs(b));
  if (std::signbit(a) != std::signbit(b)) return ua + ub;
  return ua > ub ? ua - ub : ub - ua;
}

struct ComplexCase {
  const char* fn;
  ComplexD z, expected;  // expected: mpmath at 3000 bits, rounded
};

ComplexD evaluate(const std::string& fn, ComplexD z) {
  if (fn == "log1p") return accurateLog1p(z);
  if (fn == "log") return accurateLog(z);
  if (fn == "sqrt") return accurateSqrt(z);
  if (fn == "asin") return accurateAsin(z);
  if (fn == "acos") return accurateAcos(z);
  if (fn == "atanh") return accurateAtanh(z);
  if (fn == "atan") return accurateAtan(z);
  if (fn == "acosh") return accurateAcosh(z);
  if (fn == "asinh") return accurateAsinh(z);
  if (fn == "exp") return accurateExp(z);
  ADD_FAILURE() << "unknown function " << fn;
  return {};
}

TEST(ChloMathTest, ComplexFunctionsAtHardPoints) {
  const ComplexCase cases[] = {
      // log1p next to z = -1 and along |1 + z| = 1 (where 2x + x² + y² cancels).
      {"log1p", {-0x1.fffffff800000p-1, 0x1.9c511dc3a41dfp-29}, {-0x1.3942260f82248p+4, 0x1.4510dbf374d1ep+0}},
      {"log1p", {-0x1.12e0be826d695p-30, 0x1.7726636ae6e78p-15}, {0x1.2725dd5a69797p-61, 0x1.7726636cfffd7p-15}},
      {"log1p", {0x1.56e1fc2f8f359p-997, 0x1.87e92154ef7acp-665}, {0x1.56e1fc2f8f359p-997, 0x1.87e92154ef7acp-665}},
      // log on the unit circle up to rounding, and at the top of the range.
      {"log", {0x1.3333333333333p-1, 0x1.999999999999bp-1}, {0x1.0000000000000p-53, 0x1.dac670561bb50p-1}},
      {"log", {0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023}, {0x1.62c579e3609a5p+9, 0x1.921fb54442d18p-1}},
      // sqrt of the largest negative and of subnormals.
      {"sqrt", {-0x1.fffffffffffffp+1023, 0x1.56e1fc2f8f359p-997}, {0x0.0p+0, 0x1.fffffffffffffp+511}},
      {"sqrt", {0x0.0000000000001p-1022, 0x0.0000000000001p-1022}, {0x1.19435caffa9f9p-537, 0x1.d203138f6c828p-539}},
      // asin/acos/acosh next to the branch points ±1 and far out.
      {"asin", {0x1.ffffffffffffep-1, 0x1.56e1fc2f8f359p-997}, {0x1.921fb4e9c057fp+0, 0x1.e4e8d12762226p-972}},
      {"acos", {-0x1.0000000000000p+0, 0x0.0p+0}, {0x1.921fb54442d18p+1, -0x0.0p+0}},
      {"asin", {0x1.7e43c8800759cp+996, 0x1.b7cdfd9d7bdbbp-34}, {0x1.921fb54442d18p+0, 0x1.59bbfd8b83e44p+9}},
      {"acosh", {0x1.0000000000001p+0, -0x0.012688b70e62bp-1022}, {0x1.6a09e667f3bccp-26, -0x1.a088b6bf34f3ep-1005}},
      {"asinh", {-0x1.4f8b588e368f1p-17, 0x1.0000000000000p+0}, {-0x1.9e7c84e625176p-9, 0x1.9150771872ae6p+0}},
      // atanh at its branch point and for huge |z|; atan next to its branch point i.
      {"atanh", {0x1.0000000000000p+0, 0x1.56e1fc2f8f359p-997}, {0x1.59bbfd8b83e44p+8, 0x1.921fb54442d18p-1}},
      {"atanh", {0x1.0000000000000p-1, 0x1.4e718d7d7625ap+664}, {0x0.0p+0, 0x1.921fb54442d18p+0}},
      {"atan", {0x1.79ca10c924223p-67, 0x1.fffffffffffffp-1}, {0x1.79ca10b8001f2p-15, 0x1.2b708871a6acfp+4}},
      // exp where exp(x) alone overflows, and where the result is subnormal.
      {"exp", {0x1.62f3333333333p+9, 0x1.0000000000000p+0}, {0x1.370f50c71aa0fp+1023, 0x1.e4726d0aa138ap+1023}},
      {"exp", {-0x1.7480000000000p+9, 0x1.0000000000000p-1}, {0x0.0000000000001p-1022, 0x0.0p+0}},
  };
  for (const ComplexCase& c : cases) {
    ComplexD got = evaluate(c.fn, c.z);
    uint64_t ulps = std::max(ulpDistance(got.real(), c.expected.real()),
                             ulpDistance(got.imag(), c.expected.imag()));
    EXPECT_LE(ulps, 3u) << c.fn << "(" << c.z << ") = " << got << ", expected " << c.expected;
  }
}

TEST(ChloMathTest, ComplexSpecialValues) {
  const double inf = INFINITY;
  // Annex G where the conformance data agree with it, mpmath's NaN where they do not.
  EXPECT_EQ(accurateSqrt({-inf, 1.0}), ComplexD(0.0, inf));
  EXPECT_EQ(accurateSqrt({2.0, -inf}), ComplexD(inf, -inf));
  EXPECT_EQ(accurateLog({0.0, 0.0}).real(), -inf);
  EXPECT_TRUE(std::isnan(accurateExp({inf, inf}).real()));
  EXPECT_EQ(accurateExp({-inf, 0.0}), ComplexD(0.0, 0.0));
  EXPECT_EQ(accurateSquare({1e300, 1e300}), ComplexD(0.0, inf));
  EXPECT_TRUE(std::isnan(accurateSquare({inf, inf}).real()));
  EXPECT_EQ(accurateAsin({inf, 0.0}).imag(), inf);
  EXPECT_EQ(accurateAtanh({1.0, 0.0}), ComplexD(inf, 0.0));
  // The branch cut of atanh: the sign of a zero imaginary part picks the side.
  EXPECT_GT(accurateAtanh({2.0, 0.0}).imag(), 1.5);
  EXPECT_LT(accurateAtanh({2.0, -0.0}).imag(), -1.5);
}

TEST(ChloMathTest, SpecialFunctions) {
  struct Case {
    double (*fn)(double);
    double x, expected;
    uint64_t maxUlps;
  };
  const Case cases[] = {
      {erfInv, 0x1.0000000000000p-1, 0x1.e861fbb24c00ap-2, 1},
      {erfInv, 0x1.fffffffffffffp-1, 0x1.7744f8f74e94ap+2, 1},  // 1 - 2⁻⁵³
      {erfInv, -0x1.ffffde7210be9p-1, -0x1.babd964830d58p+1, 1},
      {erfInv, 0x1.56e1fc2f8f359p-997, 0x1.2fdf36bf69b9fp-997, 1},
      {digamma, 0x1.762d86356be3fp+0, -0x1.aa2d9b3ce29e0p-54, 2},  // the root, rounded
      {digamma, 0x1.8000000000000p+0, 0x1.2aed059bd608ap-5, 2},
      {digamma, 0x1.0000000000000p-2, -0x1.0e8e9943cd7c3p+2, 2},
      {digamma, -0x1.4000000000000p+1, 0x1.1a68793defc15p+0, 4},
      {digamma, 0x1.5798ee2308c3ap-27, -0x1.7d784024f119ep+26, 2},
      {digamma, 0x1.9200000000000p+6, 0x1.26bb2d352de35p+2, 2},
      {besselI1e, 0x1.0000000000000p-1, 0x1.40598cd0be9efp-3, 8},
      {besselI1e, 0x1.0000000000000p+3, 0x1.12b94cad917c6p-3, 8},
      {besselI1e, 0x1.e000000000000p+4, 0x1.2691bcff83228p-4, 8},
      {besselI1e, -0x1.8000000000000p+1, -0x1.9319e244ba85dp-3, 8},
      {logGamma, 0x1.000001ad7f29bp+0, -0x1.efd30c8e518b9p-25, 3},
      {logGamma, 0x1.4000000000000p+1, 0x1.2383e809a67e8p-2, 3},
      {logGamma, -0x1.4000000000000p+1, -0x1.ccbf9f5ed0f16p-5, 3},
      {logGamma, 0x1.56e1fc2f8f359p-997, 0x1.5963447f87fb5p+9, 3},
  };
  for (const Case& c : cases) {
    double got = c.fn(c.x);
    EXPECT_LE(ulpDistance(got, c.expected), c.maxUlps) << c.x << " -> " << got << ", expected " << c.expected;
  }
  EXPECT_EQ(erfInv(1.0), INFINITY);
  EXPECT_TRUE(std::isnan(erfInv(1.5)));
  EXPECT_EQ(digamma(0.0), -INFINITY);  // both zeros, as CHLO's decomposition has it
  EXPECT_EQ(digamma(-0.0), -INFINITY);
  EXPECT_TRUE(std::isnan(digamma(-3.0)));
  EXPECT_EQ(logGamma(-3.0), INFINITY);
  EXPECT_EQ(logGamma(-INFINITY), INFINITY);
}

using I = std::vector<int64_t>;
using B = std::vector<uint64_t>;

TEST(ChloKernelTest, TopKKeepsTiesInOrderAndPutsNanFirst) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2x3xf32>, tensor<2x3xi32>) {
      %x = stablehlo.constant dense<[[1.0, 3.0, 1.0, 3.0], [0.0, -0.0, 0x7FC00000, 0xFF800000]]> : tensor<2x4xf32>
      %v, %i = chlo.top_k(%x, k = 3) : tensor<2x4xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
      return %v, %i : tensor<2x3xf32>, tensor<2x3xi32>
    })");
  EXPECT_EQ(ints(r[1]), (I{1, 3, 0, 2, 0, 1}));  // NaN > +0 > -0 in totalOrder
  EXPECT_EQ(bits(r[0]), (B{0x40400000, 0x40400000, 0x3f800000, 0x7fc00000, 0, 0x80000000}));
}

TEST(ChloKernelTest, TopKOfUnsignedAndBool) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2xui64>, tensor<2xi32>, tensor<2xi32>) {
      %x = stablehlo.constant dense<[1, 18446744073709551615, 7]> : tensor<3xui64>
      %v, %i = chlo.top_k(%x, k = 2) : tensor<3xui64> -> (tensor<2xui64>, tensor<2xi32>)
      %b = stablehlo.constant dense<[false, true, true]> : tensor<3xi1>
      %bv, %bi = chlo.top_k(%b, k = 2) : tensor<3xi1> -> (tensor<2xi1>, tensor<2xi32>)
      return %v, %i, %bi : tensor<2xui64>, tensor<2xi32>, tensor<2xi32>
    })");
  EXPECT_EQ(bits(r[0]), (B{UINT64_MAX, 7}));
  EXPECT_EQ(ints(r[1]), (I{1, 2}));
  EXPECT_EQ(ints(r[2]), (I{1, 2}));
}

TEST(ChloKernelTest, NextAfterAtZeroNanAndEquality) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<5xf32>, tensor<2xbf16>) {
      %x = stablehlo.constant dense<[0.0, -0.0, 1.0, 1.0, 0x7FC00000]> : tensor<5xf32>
      %y = stablehlo.constant dense<[-1.0, 0.0, 2.0, 0.0, 1.0]> : tensor<5xf32>
      %r = chlo.next_after %x, %y : tensor<5xf32>, tensor<5xf32> -> tensor<5xf32>
      %a = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xbf16>
      %b = stablehlo.constant dense<[0.0, -3.0]> : tensor<2xbf16>
      %s = chlo.next_after %a, %b : tensor<2xbf16>, tensor<2xbf16> -> tensor<2xbf16>
      return %r, %s : tensor<5xf32>, tensor<2xbf16>
    })");
  // -smallest subnormal; y itself for ±0 == ±0; one step up and down; NaN.
  EXPECT_EQ(bits(r[0]), (B{0x80000001, 0x00000000, 0x3f800001, 0x3f7fffff, 0x7fc00000}));
  EXPECT_EQ(bits(r[1]), (B{0x3f7f, 0xc001}));
}

TEST(ChloKernelTest, MulhiSignedAndUnsigned64) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<3xi64>, tensor<2xui64>, tensor<2xi8>) {
      %a = stablehlo.constant dense<[-9223372036854775808, -1, 4611686018427387904]> : tensor<3xi64>
      %b = stablehlo.constant dense<[-9223372036854775808, 5, -8]> : tensor<3xi64>
      %r = "chlo.mulhi"(%a, %b) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
      %c = stablehlo.constant dense<[18446744073709551615, 4294967296]> : tensor<2xui64>
      %d = stablehlo.constant dense<[18446744073709551615, 4294967296]> : tensor<2xui64>
      %s = "chlo.mulhi"(%c, %d) : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
      %e = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
      %t = "chlo.mulhi"(%e, %e) : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
      return %r, %s, %t : tensor<3xi64>, tensor<2xui64>, tensor<2xi8>
    })");
  EXPECT_EQ(ints(r[0]), (I{int64_t{1} << 62, -1, -2}));
  EXPECT_EQ(bits(r[1]), (B{UINT64_MAX - 1, 1}));
  EXPECT_EQ(ints(r[2]), (I{64, 63}));
}

TEST(ChloKernelTest, BroadcastAddNumpyAndExplicitDimensions) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2x3xi32>, tensor<2x3xi32>) {
      %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
      %b = stablehlo.constant dense<[[10], [20]]> : tensor<2x1xi32>
      %r = "chlo.broadcast_add"(%a, %b) : (tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
      %c = stablehlo.constant dense<[100, 200]> : tensor<2xi32>
      %d = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
      %s = "chlo.broadcast_add"(%c, %d) {broadcast_dimensions = array<i64: 0>} : (tensor<2xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
      return %r, %s : tensor<2x3xi32>, tensor<2x3xi32>
    })");
  EXPECT_EQ(ints(r[0]), (I{11, 12, 13, 21, 22, 23}));
  EXPECT_EQ(ints(r[1]), (I{101, 102, 103, 204, 205, 206}));
}

TEST(ChloKernelTest, NarrowFloatsRoundOnceAndSquareWraps) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<2xbf16>, tensor<2xi8>, tensor<f64>) {
      %x = stablehlo.constant dense<[0.5, -0.5]> : tensor<2xbf16>
      %e = chlo.erf_inv %x : tensor<2xbf16> -> tensor<2xbf16>
      %i = stablehlo.constant dense<[16, -12]> : tensor<2xi8>
      %s = chlo.square %i : tensor<2xi8> -> tensor<2xi8>
      %m = stablehlo.constant dense<-1.0> : tensor<f64>
      %a = chlo.acos %m : tensor<f64> -> tensor<f64>
      return %e, %s, %a : tensor<2xbf16>, tensor<2xi8>, tensor<f64>
    })");
  EXPECT_EQ(bits(r[0]), (B{0x3ef4, 0xbef4}));  // erfinv(0.5) = 0.476936... -> bf16 0.4765625
  EXPECT_EQ(ints(r[1]), (I{0, -112}));          // 256 and 144 wrapped to i8
  EXPECT_EQ(r[2].tensor().floatAt(0), 3.141592653589793);
}

}  // namespace
}  // namespace kiln::interp
