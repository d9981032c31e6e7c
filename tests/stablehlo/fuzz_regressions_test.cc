// Inputs the fuzzer once broke kiln with (tests/stablehlo/fuzz_regressions/): each must
// now be rejected cleanly or read back to itself.
#include <gtest/gtest.h>

#include <filesystem>

#include "stablehlo/round_trip.h"

namespace kiln::stablehlo {
namespace {

TEST(FuzzRegressionsTest, ReproducersAreHandled) {
  std::filesystem::path dir = std::filesystem::path(KILN_SOURCE_DIR) / "tests/stablehlo/fuzz_regressions";
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    ++count;
    RoundTripResult r = checkRoundTrip(SourceBuffer::fromFile(entry.path().string()));
    EXPECT_NE(r.status, RoundTripResult::Status::Mismatch) << entry.path() << ": " << r.message;
  }
  EXPECT_GT(count, 0u) << "no reproducers in " << dir;
}

}  // namespace
}  // namespace kiln::stablehlo
