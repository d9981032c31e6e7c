// Literals: element access per dtype, narrow signed storage, splats, equality.
#include "ir/literal.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln {
namespace {

TEST(LiteralTest, NarrowSignedIntegersKeepTheirSign) {
  Literal lit(Type::tensor(DType::I4, {3}));
  lit.setInt(0, -8);
  lit.setInt(1, 7);
  lit.setInt(2, 15);  // wraps to -1
  EXPECT_EQ(lit.intAt(0), -8);
  EXPECT_EQ(lit.intAt(1), 7);
  EXPECT_EQ(lit.intAt(2), -1);
  Literal u(Type::tensor(DType::U2, {1}));
  u.setInt(0, 3);
  EXPECT_EQ(u.intAt(0), 3);
}

TEST(LiteralTest, SplatsExpandOnWriteAndCompareEqualToFullForm) {
  uint8_t one[4];
  float f = 1.5f;
  std::memcpy(one, &f, 4);
  Literal splat = Literal::splat(Type::tensor(DType::F32, {2, 2}), one);
  EXPECT_TRUE(splat.isSplat());
  EXPECT_EQ(splat.storageSize(), 4u);
  EXPECT_EQ(splat.floatAt(3), 1.5);
  Literal full(Type::tensor(DType::F32, {2, 2}));
  for (int i = 0; i < 4; ++i) full.setFloat(i, 1.5);
  EXPECT_EQ(splat, full);
  EXPECT_EQ(splat.hash(), full.hash());
  Literal copy = splat;
  copy.setFloat(0, 2.0);  // copy-on-write: the original is untouched
  EXPECT_FALSE(copy.isSplat());
  EXPECT_EQ(splat.floatAt(0), 1.5);
  EXPECT_EQ(copy.floatAt(0), 2.0);
  EXPECT_NE(copy, splat);
}

TEST(LiteralTest, ComplexAndHalf) {
  Literal c(Type::tensor(DType::C64, {1}));
  c.setComplex(0, {1.25, -3.0});
  EXPECT_EQ(c.complexAt(0), std::complex<double>(1.25, -3.0));
  Literal h(Type::tensor(DType::F16, {1}));
  h.setFloat(0, 0.1);
  EXPECT_EQ(h.bitsAt(0), 0x2E66u);
}

TEST(LiteralTest, NegativeZeroIsNotZero) {
  Literal a(Type::scalar(DType::F32)), b(Type::scalar(DType::F32));
  a.setFloat(0, 0.0);
  b.setFloat(0, -0.0);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace kiln
