// Large byte vectors: a large value's memory, once freed, serves the next value of about
// its size (already touched: no page to fault in and zero again), zeroed or copied as
// asked; small values and values of another size class get memory of their own.
#include "support/large_bytes.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kiln {
namespace {

constexpr size_t kLarge = size_t{64} << 20;

TEST(LargeBytesTest, AFreedLargeValuesMemoryServesTheNextOfItsSize) {
  const uint8_t* first = nullptr;
  {
    std::shared_ptr<std::vector<uint8_t>> bytes = sharedBytes(zeroedBytes(kLarge));
    first = bytes->data();
    std::fill(bytes->begin(), bytes->end(), uint8_t{7});
  }
  std::shared_ptr<std::vector<uint8_t>> again = sharedBytes(zeroedBytes(kLarge - 4096));
  EXPECT_EQ(again->data(), first);
  EXPECT_EQ(again->size(), kLarge - 4096);
  EXPECT_TRUE(std::all_of(again->begin(), again->end(), [](uint8_t b) { return b == 0; }));  // zeroed again
  // While it is in use, another value gets memory of its own; a copy is a copy.
  const std::vector<uint8_t> source(kLarge, 3);
  std::shared_ptr<std::vector<uint8_t>> copy = sharedBytes(copiedBytes(source.data(), source.size()));
  EXPECT_NE(copy->data(), again->data());
  EXPECT_EQ(*copy, source);
}

// A value its maker writes whole takes the freed memory as it is: no pass zeroes it.
// (A size no other test here uses, so that the memory kept is this test's.)
TEST(LargeBytesTest, AValueToOverwriteTakesFreedMemoryAsItIs) {
  constexpr size_t kSize = size_t{96} << 20;
  const uint8_t* first = nullptr;
  {
    std::shared_ptr<std::vector<uint8_t>> bytes = sharedBytes(zeroedBytes(kSize));
    first = bytes->data();
    std::fill(bytes->begin(), bytes->end(), uint8_t{7});
  }
  std::shared_ptr<std::vector<uint8_t>> again = sharedBytes(bytesToOverwrite(kSize));
  EXPECT_EQ(again->data(), first);
  ASSERT_EQ(again->size(), kSize);
  EXPECT_EQ((*again)[0], 7);
  EXPECT_EQ((*again)[kSize - 1], 7);
  // Nothing kept of its size (the one above is in use): fresh memory, zeros.
  std::shared_ptr<std::vector<uint8_t>> fresh = sharedBytes(bytesToOverwrite(kSize));
  EXPECT_NE(fresh->data(), first);
  EXPECT_TRUE(std::all_of(fresh->begin(), fresh->end(), [](uint8_t b) { return b == 0; }));
}

TEST(LargeBytesTest, ValuesOfAnotherSizeClassAreNotServedByIt) {
  const uint8_t* large = nullptr;
  {
    std::shared_ptr<std::vector<uint8_t>> bytes = sharedBytes(zeroedBytes(kLarge));
    large = bytes->data();
  }
  // Well under the kept vector's size: memory of its own.
  std::shared_ptr<std::vector<uint8_t>> small = sharedBytes(zeroedBytes(kLarge / 4));
  EXPECT_NE(small->data(), large);
  EXPECT_LT(small->capacity(), kLarge);
  std::shared_ptr<std::vector<uint8_t>> tiny = sharedBytes(zeroedBytes(64));
  EXPECT_EQ(tiny->size(), 64u);
}

}  // namespace
}  // namespace kiln
