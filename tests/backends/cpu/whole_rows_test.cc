// Kernels over whole rows (Kernel::unit): a loop over the rows of a shape no wider than a
// thread's chunk asks for ranges of whole rows, and then visits each row whole, its
// bounds constants. The thread pool must cut ranges only between rows (checked on a
// kernel that records its ranges: a kernel given part of a row would compute all of it,
// twice where two chunks share the row), the emitter must ask for rows where it may and
// not where rows are wider than a chunk, and the results are the interpreter's bits at
// 1, 2 and 8 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/threads.h"

namespace kiln::cpu {
namespace {

std::mutex recordedRangesMutex;
std::vector<std::pair<int64_t, int64_t>> recordedRanges;

void recordRange(void* const*, int64_t begin, int64_t end) {
  std::lock_guard<std::mutex> lock(recordedRangesMutex);
  recordedRanges.emplace_back(begin, end);
}

TEST(WholeRowsTest, ThePoolCutsRangesOnlyBetweenUnits) {
  Kernel kernel;
  kernel.code = std::make_shared<KernelCode>();
  kernel.code->fn = &recordRange;
  kernel.iterations = 300 * 1000;
  kernel.grain = 1 << 12;
  kernel.unit = 1000;
  for (int threads : {1, 2, 8}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    setThreadCount(threads);
    recordedRanges.clear();
    runKernel(kernel, nullptr);
    std::sort(recordedRanges.begin(), recordedRanges.end());
    ASSERT_FALSE(recordedRanges.empty());
    if (threads > 1) {
      EXPECT_GT(recordedRanges.size(), 1u);
    }
    int64_t next = 0;
    for (const auto& [begin, end] : recordedRanges) {
      EXPECT_EQ(begin, next);
      EXPECT_EQ(begin % kernel.unit, 0);
      EXPECT_TRUE(end % kernel.unit == 0 || end == kernel.iterations) << end;
      next = end;
    }
    EXPECT_EQ(next, kernel.iterations);
  }
  setThreadCount(0);
}

// The unit of the program's one kernel.
int64_t unitOf(const test_util::Compiled& c) {
  EXPECT_EQ(c.exe->native().kernels.size(), 1u);
  return c.exe->native().kernels.empty() ? 0 : c.exe->native().kernels.begin()->second.unit;
}


// 300 rows of 1000 (not a divisor of any chunk's size), with a bias along the row.
TEST(WholeRowsTest, ALoopOverNarrowRowsRunsInWholeRows) {
  test_util::Compiled c = test_util::compile(R"(
func.func @main(%x: tensor<300x1000xf32>, %b: tensor<1000xf32>) -> tensor<300x1000xf32> {
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<1000xf32>) -> tensor<300x1000xf32>
  %y = stablehlo.multiply %x, %bb : tensor<300x1000xf32>
  %z = stablehlo.add %y, %x : tensor<300x1000xf32>
  return %z : tensor<300x1000xf32>
})");
  EXPECT_EQ(unitOf(c), 1000);
  test_util::expectInterpreterBitsAtEveryThreadCount(c);
}

// Rows wider than a thread's chunk (2^16 elements) would leave threads idle: such a loop
// keeps recordedRanges of any elements.
TEST(WholeRowsTest, RowsWiderThanAChunkAreCutAnywhere) {
  test_util::Compiled c = test_util::compile(R"(
func.func @main(%x: tensor<3x100000xf32>) -> tensor<3x100000xf32> {
  %y = stablehlo.multiply %x, %x : tensor<3x100000xf32>
  return %y : tensor<3x100000xf32>
})");
  EXPECT_EQ(unitOf(c), 1);
  test_util::expectInterpreterBitsAtEveryThreadCount(c);
}

}  // namespace
}  // namespace kiln::cpu
