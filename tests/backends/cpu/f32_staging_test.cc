// The f32 staging of f16/bf16 GEMMs (backends/cpu/f32_staging.h) gives the interpreter's
// bits: every f16 and bf16 widens exactly, and f32s round to nearest even, NaN to the
// format's quiet NaN, overflow to inf, subnormals kept, on the vector path and its tail.
#include "backends/cpu/f32_staging.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ir/float_format.h"

namespace kiln::cpu {
namespace {

float floatOf(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

TEST(F32StagingTest, EveryF16AndBf16WidensExactly) {
  for (DType t : {DType::BF16, DType::F16}) {
    std::vector<uint16_t> all(65536 + 5);  // + a tail past the vector loop's eights
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
    std::vector<float> wide(all.size());
    widenToF32(t, all.data(), wide.data(), static_cast<int64_t>(all.size()));
    for (size_t i = 0; i < all.size(); ++i) {
      const double want = bitsToFloat(all[i], t);
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(wide[i])) << name(t) << " bits " << all[i];
      else EXPECT_EQ(wide[i], want) << name(t) << " bits " << all[i];
    }
  }
}

TEST(F32StagingTest, F32sRoundAsTheInterpreterEncodes) {
  std::vector<float> values = {0.0f, -0.0f, 1.0f, 1.00390625f, 1.005859375f, 65504.0f, 65520.0f, 1e30f,
                               -1e30f, 3.4e38f, INFINITY, -INFINITY, NAN, -NAN, floatOf(0x7F800001u),
                               floatOf(0x00000001u), floatOf(0x00800000u), 6e-8f, 3e-8f, 1e-40f};
  std::mt19937 random(7);
  while (values.size() < 100003) values.push_back(floatOf(static_cast<uint32_t>(random())));
  for (DType t : {DType::BF16, DType::F16}) {
    std::vector<uint16_t> narrow(values.size());
    narrowFromF32(t, values.data(), narrow.data(), static_cast<int64_t>(values.size()));
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(narrow[i], floatToBits(values[i], t)) << name(t) << " of " << values[i] << " (element " << i << ")";
  }
}

TEST(F32StagingTest, StagingBuffersGrowAndStayPerSlot) {
  float* a = stagingBuffer(StagingSlot::Lhs, 10);
  float* b = stagingBuffer(StagingSlot::Rhs, 10);
  float* w = stagingBuffer(StagingSlot::Windows, 10);
  EXPECT_NE(a, b);
  EXPECT_NE(w, a);
  EXPECT_NE(w, b);
  EXPECT_EQ(stagingBuffer(StagingSlot::Lhs, 5), a);  // a smaller request reuses it
  float* big = stagingBuffer(StagingSlot::Lhs, 1 << 20);
  big[(1 << 20) - 1] = 1.0f;  // (the sanitizer builds check the size)
  EXPECT_EQ(stagingBuffer(StagingSlot::Rhs, 10), b);
  EXPECT_EQ(stagingBuffer(StagingSlot::Windows, 10), w);
}

}  // namespace
}  // namespace kiln::cpu
