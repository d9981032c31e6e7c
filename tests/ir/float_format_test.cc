// Float formats: exact encode/decode, rounding, overflow and the special values of each
// family (IEEE, FN, FNUZ, MX).
#include "ir/float_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

TEST(FloatFormatTest, HalfPrecisionValues) {
  EXPECT_EQ(floatToBits(1.0, DType::F16), 0x3C00u);
  EXPECT_EQ(floatToBits(-2.0, DType::F16), 0xC000u);
  EXPECT_EQ(floatToBits(65504.0, DType::F16), 0x7BFFu);  // largest finite
  EXPECT_EQ(floatToBits(65520.0, DType::F16), 0x7C00u);  // rounds to inf (ties to even)
  EXPECT_EQ(floatToBits(kInf, DType::F16), 0x7C00u);
  EXPECT_EQ(floatToBits(std::ldexp(1.0, -24), DType::F16), 0x0001u);  // smallest subnormal
  EXPECT_EQ(floatToBits(std::ldexp(1.0, -25), DType::F16), 0x0000u);  // half of it: ties to even (0)
  EXPECT_EQ(floatToBits(std::ldexp(3.0, -26), DType::F16), 0x0001u);  // 0.75 ulp rounds up
  EXPECT_EQ(floatToBits(-0.0, DType::F16), 0x8000u);
  EXPECT_TRUE(std::isnan(bitsToFloat(0x7E00, DType::F16)));
  EXPECT_EQ(bitsToFloat(0x3555, DType::F16), 0.333251953125);
}

TEST(FloatFormatTest, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(floatToBits(1.0, DType::BF16), 0x3F80u);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even keeps 1.
  EXPECT_EQ(floatToBits(1.0 + std::ldexp(1.0, -8), DType::BF16), 0x3F80u);
  EXPECT_EQ(floatToBits(1.0 + 3 * std::ldexp(1.0, -8), DType::BF16), 0x3F82u);
}

TEST(FloatFormatTest, Fp8Families) {
  // E4M3FN: no inf, 448 is the largest, the all-ones pattern is NaN.
  EXPECT_EQ(floatToBits(448.0, DType::F8E4M3FN), 0x7Eu);
  EXPECT_EQ(floatToBits(464.0, DType::F8E4M3FN), 0x7Eu);  // tie rounds to even (448)
  EXPECT_TRUE(std::isnan(bitsToFloat(floatToBits(1000.0, DType::F8E4M3FN), DType::F8E4M3FN)));
  EXPECT_TRUE(std::isnan(bitsToFloat(0x7F, DType::F8E4M3FN)));
  EXPECT_EQ(bitsToFloat(0x01, DType::F8E4M3FN), std::ldexp(1.0, -9));
  // FNUZ: -0 does not exist; its pattern is the NaN.
  EXPECT_EQ(floatToBits(-0.0, DType::F8E5M2FNUZ), 0x00u);
  EXPECT_TRUE(std::isnan(bitsToFloat(0x80, DType::F8E5M2FNUZ)));
  EXPECT_EQ(bitsToFloat(0x7F, DType::F8E4M3B11FNUZ), 30.0);
  // E5M2 is IEEE-like.
  EXPECT_EQ(floatToBits(kInf, DType::F8E5M2), 0x7Cu);
  EXPECT_EQ(bitsToFloat(0x7B, DType::F8E5M2), 57344.0);
}

TEST(FloatFormatTest, MicroscalingFormats) {
  // f4E2M1FN: no inf or NaN; overflow saturates.
  EXPECT_EQ(bitsToFloat(0x7, DType::F4E2M1FN), 6.0);
  EXPECT_EQ(bitsToFloat(0xF, DType::F4E2M1FN), -6.0);
  EXPECT_EQ(floatToBits(100.0, DType::F4E2M1FN), 0x7u);
  EXPECT_EQ(floatToBits(3.1415, DType::F4E2M1FN), 0x5u);  // 3.0
  EXPECT_EQ(bitsToFloat(0x1F, DType::F6E2M3FN), 7.5);
  EXPECT_EQ(bitsToFloat(0x1F, DType::F6E3M2FN), 28.0);
  // E8M0: powers of two only, no zero, no sign.
  EXPECT_EQ(bitsToFloat(127, DType::F8E8M0FNU), 1.0);
  EXPECT_EQ(floatToBits(4.0, DType::F8E8M0FNU), 129u);
  EXPECT_TRUE(std::isnan(bitsToFloat(0xFF, DType::F8E8M0FNU)));
}

TEST(FloatFormatTest, EveryPatternRoundTrips) {
  for (DType t : {DType::F16, DType::BF16, DType::F8E4M3FN, DType::F8E5M2, DType::F8E4M3FNUZ,
                  DType::F8E5M2FNUZ, DType::F8E4M3B11FNUZ, DType::F8E3M4, DType::F8E4M3,
                  DType::F4E2M1FN, DType::F6E2M3FN, DType::F6E3M2FN, DType::F8E8M0FNU}) {
    int bits = bitWidth(t);
    for (uint64_t b = 0; b < (uint64_t{1} << bits); ++b) {
      double v = bitsToFloat(b, t);
      if (std::isnan(v)) continue;
      EXPECT_EQ(floatToBits(v, t), b) << name(t) << " pattern " << b;
    }
  }
}

TEST(FloatFormatTest, DecimalParsingRoundsOnce) {
  uint64_t bits;
  // 0.1 in f16: nearest is 0x2E66.
  ASSERT_TRUE(parseDecimalFloat("0.1", DType::F16, bits));
  EXPECT_EQ(bits, 0x2E66u);
  // A decimal just above the halfway point between two f16 values must round up even
  // though the nearest double sits exactly on the halfway point.
  // 1 + 2^-11 is the tie between 1 and 1 + 2^-10; add a tiny amount.
  ASSERT_TRUE(parseDecimalFloat("1.00048828125000000000000001", DType::F16, bits));
  EXPECT_EQ(bits, 0x3C01u);
  ASSERT_TRUE(parseDecimalFloat("1.00048828125", DType::F16, bits));  // exact tie: even
  EXPECT_EQ(bits, 0x3C00u);
  ASSERT_TRUE(parseDecimalFloat("-2.5e-3", DType::F32, bits));
  EXPECT_EQ(bits, 0xBB23D70Au);
  EXPECT_FALSE(parseDecimalFloat("1.0x", DType::F32, bits));
  EXPECT_FALSE(parseDecimalFloat("", DType::F64, bits));
}

}  // namespace
}  // namespace kiln
