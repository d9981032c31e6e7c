// rng_bit_generator against known answers (the spec's THREE_FRY example and the
// Random123 test vectors of Threefry-2x32-20 and Philox-4x32-10, placed where XLA puts
// key and counter), the state update, and rng's ranges.
#include <gtest/gtest.h>

#include "interp/run_program.h"

#include "interp/interpreter.h"
#include "stablehlo/parser.h"

namespace kiln::interp {
namespace {

using namespace kiln::interp::testing;  // NOLINT: run, bits

// @main generating `out` from the ui64 state `state` with `algorithm`.
std::string generator(const std::string& algorithm, const std::string& state, int stateSize,
                      const std::string& out) {
  std::string st = "tensor<" + std::to_string(stateSize) + "xui64>";
  return "func.func @main() -> (" + st + ", " + out +
         ") {\n"
         "  %s = stablehlo.constant dense<" +
         state + "> : " + st +
         "\n"
         "  %n, %o = stablehlo.rng_bit_generator %s, algorithm = " +
         algorithm + " : (" + st + ") -> (" + st + ", " + out +
         ")\n"
         "  return %n, %o : " +
         st + ", " + out + "\n}";
}

TEST(RandomTest, ThreeFryMatchesTheSpecExample) {
  HostValues r = run(generator("THREE_FRY", "[1, 2]", 2, "tensor<2x2xui64>"));
  EXPECT_EQ(bits(r[0]), (std::vector<uint64_t>{1, 6}));
  EXPECT_EQ(bits(r[1]), (std::vector<uint64_t>{9236835810183407956u, 16087790271692313299u,
                                               18212823393184779219u, 2658481902456610144u}));
}

// Random123 kat_vectors: threefry2x32_20 of counter 0, key 0 is (6b200159, 99ba4efe).
// XLA's key is state word 0 and its counter word 1; a ui64 output joins the two words
// low first.
TEST(RandomTest, ThreeFryKnownAnswer) {
  HostValues r = run(generator("THREE_FRY", "[0, 0]", 2, "tensor<ui64>"));
  EXPECT_EQ(bits(r[1]), (std::vector<uint64_t>{0x99ba4efe6b200159u}));
  EXPECT_EQ(bits(r[0]), (std::vector<uint64_t>{0, 1}));
}

// 32-bit outputs pair up along the first even dimension: draw k gives outputs 2k, 2k+1.
TEST(RandomTest, ThreeFry32BitOutputsSplitEachDraw) {
  HostValues wide = run(generator("THREE_FRY", "[0, 0]", 2, "tensor<2xui64>"));
  HostValues narrow = run(generator("THREE_FRY", "[0, 0]", 2, "tensor<4xui32>"));
  std::vector<uint64_t> w = bits(wide[1]);
  EXPECT_EQ(bits(narrow[1]), (std::vector<uint64_t>{w[0] & 0xffffffffu, w[0] >> 32,
                                                    w[1] & 0xffffffffu, w[1] >> 32}));
  EXPECT_EQ(bits(narrow[0]), (std::vector<uint64_t>{0, 2}));
}

// Random123: philox4x32_10 of counter 0, key 0 is (6627e8d5, e169c58d, bc57ac4c, 9b00dbd8).
// With a two-word state XLA's 128-bit counter is (word 1, word 0) and the key word 0.
TEST(RandomTest, PhiloxKnownAnswer) {
  HostValues r = run(generator("PHILOX", "[0, 0]", 2, "tensor<4xui32>"));
  EXPECT_EQ(bits(r[1]), (std::vector<uint64_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(bits(r[0]), (std::vector<uint64_t>{0, 1}));
}

// Random123: all-ones counter and key give (408f276d, 41c83b0e, a20bc7c6, 6d5451fd); the
// three-word state's counter then wraps to zero across both words.
TEST(RandomTest, PhiloxThreeWordStateCarries) {
  std::string ones = "18446744073709551615";
  HostValues r =
      run(generator("PHILOX", "[" + ones + ", " + ones + ", " + ones + "]", 3, "tensor<4xui32>"));
  EXPECT_EQ(bits(r[1]), (std::vector<uint64_t>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(bits(r[0]), (std::vector<uint64_t>{0xffffffffffffffffu, 0, 0}));
}

TEST(RandomTest, DefaultIsPhilox) {
  HostValues a = run(generator("DEFAULT", "[3, 4]", 2, "tensor<5xui64>"));
  HostValues b = run(generator("PHILOX", "[3, 4]", 2, "tensor<5xui64>"));
  EXPECT_EQ(bits(a[1]), bits(b[1]));
  EXPECT_EQ(bits(a[0]), (std::vector<uint64_t>{3, 7}));  // three draws of two outputs
}

TEST(RandomTest, UniformStaysInRange) {
  HostValues r = run(R"(
    func.func @main() -> (tensor<50xf32>, tensor<50xi32>) {
      %a = stablehlo.constant dense<-2.0> : tensor<f32>
      %b = stablehlo.constant dense<3.0> : tensor<f32>
      %s = stablehlo.constant dense<50> : tensor<1xi64>
      %f = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<50xf32>
      %c = stablehlo.constant dense<-5> : tensor<i32>
      %d = stablehlo.constant dense<5> : tensor<i32>
      %i = stablehlo.rng %c, %d, %s, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<50xi32>
      return %f, %i : tensor<50xf32>, tensor<50xi32>
    })");
  for (int64_t i = 0; i < 50; ++i) {
    double f = r[0].tensor().floatAt(i);
    EXPECT_TRUE(f >= -2.0 && f < 3.0) << f;
    int64_t k = r[1].tensor().intAt(i);
    EXPECT_TRUE(k >= -5 && k < 5) << k;
  }
}

// IREE's NORMAL lowering starts its Box-Muller stream with 0.570861 (see the IREE
// conformance file rng_normal.mlir); mean and deviation shift and scale it.
TEST(RandomTest, NormalScalesTheFixedStream) {
  HostValues r = run(R"(
    func.func @main() -> tensor<3xf64> {
      %a = stablehlo.constant dense<10.0> : tensor<f64>
      %b = stablehlo.constant dense<2.0> : tensor<f64>
      %s = stablehlo.constant dense<3> : tensor<1xi64>
      %n = stablehlo.rng %a, %b, %s, distribution = NORMAL : (tensor<f64>, tensor<f64>, tensor<1xi64>) -> tensor<3xf64>
      return %n : tensor<3xf64>
    })");
  EXPECT_NEAR(r[0].tensor().floatAt(0), 10.0 + 2.0 * 0.570861, 1e-4);
}

}  // namespace
}  // namespace kiln::interp
