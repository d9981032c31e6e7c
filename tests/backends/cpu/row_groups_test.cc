// Row groups (backends/cpu/row_groups.h): kernels that read row by row run together one
// block of rows at a time, with what passes between them in a block scratch. Checked
// bit for bit against the interpreter, at 1, 2 and 8 threads, on programs of many
// blocks (softmax- and layernorm-shaped, with ops exact on their inputs so that the
// interpreter's bits are the target), with a value both passed inside the group and
// returned, and kernels that read across rows, which must stay out of a group (as must
// one that would overwrite, in place, a value another member reads across rows), and
// unrelated kernels, which form groups of their own.
#include <gtest/gtest.h>

#include "backends/cpu/cpu_test_util.h"

namespace kiln::cpu {
namespace {

// The rows' maxima, the squared differences from them and their sums, the quotients:
// softmax's three kernels with exp replaced by a square (exact on the test's inputs).
// The sums are returned too, so they stay in the arena while the differences live in
// the scratch.
constexpr const char* kSoftmaxLike = R"(
func.func @main(%x: tensor<600x1000xf32>) -> (tensor<600x1000xf32>, tensor<600xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1]
      : (tensor<600x1000xf32>, tensor<f32>) -> tensor<600xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<600xf32>) -> tensor<600x1000xf32>
  %d = stablehlo.subtract %x, %mb : tensor<600x1000xf32>
  %e = stablehlo.multiply %d, %d : tensor<600x1000xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<600x1000xf32>, tensor<f32>) -> tensor<600xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<600xf32>) -> tensor<600x1000xf32>
  %y = stablehlo.divide %e, %sb : tensor<600x1000xf32>
  return %y, %s : tensor<600x1000xf32>, tensor<600xf32>
})";

// Layer normalization over rows of a 3-d batch (rows of 20x100): means, then the
// centred values scaled by per-column factors and divided by the rows' square sums.
constexpr const char* kLayerNormLike = R"(
func.func @main(%x: tensor<300x20x100xf32>, %g: tensor<100xf32>) -> tensor<300x20x100xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<0.5> : tensor<300xf32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1, 2]
      : (tensor<300x20x100xf32>, tensor<f32>) -> tensor<300xf32>
  %mean = stablehlo.multiply %sum, %n : tensor<300xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<300xf32>) -> tensor<300x20x100xf32>
  %c = stablehlo.subtract %x, %mb : tensor<300x20x100xf32>
  %sq = stablehlo.multiply %c, %c : tensor<300x20x100xf32>
  %ss = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [2]
      : (tensor<300x20x100xf32>, tensor<f32>) -> tensor<300x20xf32>
  %sb = stablehlo.broadcast_in_dim %ss, dims = [0, 1] : (tensor<300x20xf32>) -> tensor<300x20x100xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [2] : (tensor<100xf32>) -> tensor<300x20x100xf32>
  %s = stablehlo.multiply %c, %gb : tensor<300x20x100xf32>
  %y = stablehlo.divide %s, %sb : tensor<300x20x100xf32>
  return %y : tensor<300x20x100xf32>
})";

// The same over a batch of one: the rows run along the first dimension that is not 1.
constexpr const char* kBatchOfOne = R"(
func.func @main(%x: tensor<1x600x1000xf32>) -> tensor<1x600x1000xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [2]
      : (tensor<1x600x1000xf32>, tensor<f32>) -> tensor<1x600xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<1x600xf32>) -> tensor<1x600x1000xf32>
  %d = stablehlo.subtract %x, %mb : tensor<1x600x1000xf32>
  %e = stablehlo.multiply %d, %d : tensor<1x600x1000xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2]
      : (tensor<1x600x1000xf32>, tensor<f32>) -> tensor<1x600xf32>
  %t = stablehlo.reshape %s : (tensor<1x600xf32>) -> tensor<600x1xf32>
  %sb = stablehlo.broadcast_in_dim %t, dims = [1, 2] : (tensor<600x1xf32>) -> tensor<1x600x1000xf32>
  %y = stablehlo.divide %e, %sb : tensor<1x600x1000xf32>
  return %y : tensor<1x600x1000xf32>
})";

// The maxima read back to front: row i of the result needs row 599 - i of them.
constexpr const char* kAcrossRows = R"(
func.func @main(%x: tensor<600x1000xf32>) -> tensor<600x1000xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1]
      : (tensor<600x1000xf32>, tensor<f32>) -> tensor<600xf32>
  %r = stablehlo.reverse %m, dims = [0] : tensor<600xf32>
  %mb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<600xf32>) -> tensor<600x1000xf32>
  %y = stablehlo.subtract %x, %mb : tensor<600x1000xf32>
  return %y : tensor<600x1000xf32>
})";

// u reads a (made before the group) through a transpose, so all of its rows; v reads a
// row for row and is its last reader, so buffer assignment puts v in a's bytes. Grouped,
// v's first block would overwrite rows of a that u's second block still reads. (The sort
// keeps v in the arena; the values are exact, so the interpreter's bits are the target.)
constexpr const char* kOverwritesWhatAnotherReadsAcrossRows = R"(
func.func @main(%p: tensor<16x16xf32>, %q: tensor<16x16xf32>, %x: tensor<16x16xf32>, %y: tensor<16x16xf32>)
    -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %a = stablehlo.dot_general %p, %q, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %u = stablehlo.add %t, %x : tensor<16x16xf32>
  %v = stablehlo.multiply %a, %y : tensor<16x16xf32>
  %s:2 = "stablehlo.sort"(%v, %u) ({
    ^bb0(%l: tensor<f32>, %r: tensor<f32>, %l2: tensor<f32>, %r2: tensor<f32>):
      %lt = stablehlo.compare LT, %l, %r : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<16x16xf32>, tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>)
  return %s#0, %s#1 : tensor<16x16xf32>, tensor<16x16xf32>
})";

// Two of those side by side, over unrelated inputs: each is a group of its own (running
// them interleaved would only make their streams of rows compete).
constexpr const char* kTwoUnrelated = R"(
func.func @main(%x: tensor<600x1000xf32>, %w: tensor<600x1000xf32>) -> (tensor<600x1000xf32>, tensor<600x1000xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1]
      : (tensor<600x1000xf32>, tensor<f32>) -> tensor<600xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<600xf32>) -> tensor<600x1000xf32>
  %y = stablehlo.subtract %x, %mb : tensor<600x1000xf32>
  %n = stablehlo.reduce(%w init: %ninf) applies stablehlo.maximum across dimensions = [1]
      : (tensor<600x1000xf32>, tensor<f32>) -> tensor<600xf32>
  %nb = stablehlo.broadcast_in_dim %n, dims = [0] : (tensor<600xf32>) -> tensor<600x1000xf32>
  %v = stablehlo.subtract %w, %nb : tensor<600x1000xf32>
  return %y, %v : tensor<600x1000xf32>, tensor<600x1000xf32>
})";

using test_util::Compiled;
using test_util::compile;

TEST(RowGroupsTest, SoftmaxShapedKernelsRunBlockByBlock) {
  Compiled c = compile(kSoftmaxLike);
  const std::string report = c.exe->report();
  // 600 rows of three 4000-byte values: blocks of 43 rows, 14 of them.
  EXPECT_NE(report.find("row group: 3 kernels over 600 rows in blocks of 43"), std::string::npos) << report;
  test_util::expectInterpreterBitsAtEveryThreadCount(c);
}

TEST(RowGroupsTest, RowsOfSeveralDimensionsAndReducesOverPartsOfARow) {
  Compiled c = compile(kLayerNormLike);
  const std::string report = c.exe->report();
  EXPECT_NE(report.find("row group: "), std::string::npos) << report;
  EXPECT_NE(report.find(" over 300 rows in blocks of "), std::string::npos) << report;
  test_util::expectInterpreterBitsAtEveryThreadCount(c);
}

TEST(RowGroupsTest, LeadingDimensionsOfOneAreNotTheRows) {
  Compiled c = compile(kBatchOfOne);
  const std::string report = c.exe->report();
  EXPECT_NE(report.find("row group: 3 kernels over 600 rows in blocks of "), std::string::npos) << report;
  test_util::expectInterpreterBitsAtEveryThreadCount(c);
}

TEST(RowGroupsTest, KernelsWithoutRowsInCommonFormGroupsOfTheirOwn) {
  Compiled c = compile(kTwoUnrelated);
  const std::string report = c.exe->report();
  const std::string group = "row group: 2 kernels over 600 rows";
  const size_t first = report.find(group);
  ASSERT_NE(first, std::string::npos) << report;
  EXPECT_NE(report.find(group, first + 1), std::string::npos) << report;
  EXPECT_EQ(report.find("row group: 4 kernels"), std::string::npos) << report;
  test_util::expectInterpreterBitsAtEveryThreadCount(c);
}

TEST(RowGroupsTest, KernelsThatReadAcrossRowsStayOutOfGroups) {
  Compiled c = compile(kAcrossRows);
  const std::string report = c.exe->report();
  EXPECT_EQ(report.find("row group: "), std::string::npos) << report;
  test_util::expectInterpreterBitsAtEveryThreadCount(c);
}

TEST(RowGroupsTest, AKernelOverwritingWhatAnotherReadsAcrossRowsStaysOutOfItsGroup) {
  Compiled c = compile(kOverwritesWhatAnotherReadsAcrossRows);
  const std::string report = c.exe->report();
  EXPECT_EQ(report.find("row group: "), std::string::npos) << report;
  test_util::expectInterpreterBitsAtEveryThreadCount(c);
}

}  // namespace
}  // namespace kiln::cpu
