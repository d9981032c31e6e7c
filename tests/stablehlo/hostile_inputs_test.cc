// Hostile inputs (tests/stablehlo/hostile_inputs/): deep nesting, huge sizes, truncated
// and binary text, and any input the fuzzer ever broke kiln with. Each must be rejected
// with a kiln::Error (or accepted and read back to itself): never a crash, a hang or
// an exhausted stack.
#include <gtest/gtest.h>

#include <filesystem>

#include "stablehlo/round_trip.h"

namespace kiln::stablehlo {
namespace {

TEST(HostileInputsTest, AreRejectedCleanly) {
  std::filesystem::path dir = std::filesystem::path(KILN_SOURCE_DIR) / "tests/stablehlo/hostile_inputs";
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".mlir") continue;
    ++count;
    RoundTripResult r = checkRoundTrip(SourceBuffer::fromFile(entry.path().string()));
    EXPECT_NE(r.status, RoundTripResult::Status::Mismatch) << entry.path() << ": " << r.message;
  }
  EXPECT_GT(count, 20u) << "the inputs in " << dir << " are missing";
}

}  // namespace
}  // namespace kiln::stablehlo
