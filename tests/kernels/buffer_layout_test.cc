// Layout copies: row-major buffers to and from minor-to-major layouts, as the LAPACK
// calls' operand_layouts and result_layouts ask (column-major matrices, batch outermost).
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "kernels/lapack/buffer_layout.h"

namespace kiln::kernels {
namespace {

TEST(BufferLayoutTest, ColumnMajorMatricesWithTheBatchOutermost) {
  // [2, 2, 3] row-major: batch b, row r, column c at b*6 + r*3 + c.
  std::vector<int32_t> rowMajor(12);
  std::iota(rowMajor.begin(), rowMajor.end(), 0);
  const std::vector<int64_t> layout = {1, 2, 0};  // rows fastest, then columns, then batch
  std::vector<int32_t> laidOut(12, -1);
  toLayout(rowMajor.data(), laidOut.data(), {2, 2, 3}, layout, sizeof(int32_t));
  EXPECT_EQ(laidOut, (std::vector<int32_t>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
  std::vector<int32_t> back(12, -1);
  fromLayout(laidOut.data(), back.data(), {2, 2, 3}, layout, sizeof(int32_t));
  EXPECT_EQ(back, rowMajor);
  EXPECT_FALSE(isRowMajor(layout));
  EXPECT_TRUE(isRowMajor(std::vector<int64_t>{2, 1, 0}));
  EXPECT_TRUE(isRowMajor(std::vector<int64_t>{}));
}

TEST(BufferLayoutTest, EveryElementWidthAndOrderRoundTrips) {
  const Shape shape = {3, 1, 4, 2};
  const std::vector<std::vector<int64_t>> layouts = {{0, 1, 2, 3}, {2, 3, 1, 0}, {3, 0, 2, 1}};
  for (size_t width : {1u, 2u, 4u, 8u, 16u})
    for (const std::vector<int64_t>& layout : layouts) {
      std::vector<uint8_t> from(24 * width), to(24 * width), back(24 * width);
      for (size_t i = 0; i < from.size(); ++i) from[i] = static_cast<uint8_t>(i * 7 + 3);
      toLayout(from.data(), to.data(), shape, layout, width);
      fromLayout(to.data(), back.data(), shape, layout, width);
      EXPECT_EQ(back, from) << width << "-byte elements";
      EXPECT_NE(to, from) << "a layout that is not row-major moves elements";
    }
}

}  // namespace
}  // namespace kiln::kernels
