// Every .mlir file of ../shared/conformance and ../shared/models: parse -> verify ->
// print -> parse -> print is a fixed point. Files using features kiln reports as
// unsupported must fail with an "unsupported:" error, never a parse error or a crash.
#include "stablehlo/round_trip.h"

#include <gtest/gtest.h>

#include <map>

#include "test_paths.h"

namespace kiln::stablehlo {
namespace {

namespace fs = std::filesystem;

TEST(RoundTripTest, EverySharedProgram) {
  fs::path shared = kiln::testing::sharedDir();
  if (shared.empty()) GTEST_SKIP() << "../shared is absent: no conformance files to round-trip";
  std::map<std::string, std::array<size_t, 3>> perSuite;  // ok, unsupported, failed
  size_t files = 0;
  for (const char* top : {"conformance", "models"}) {
    if (!fs::exists(shared / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(shared / top)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".mlir") continue;
      ++files;
      std::string suite = fs::relative(entry.path().parent_path(), shared).string();
      RoundTripResult r = checkRoundTrip(SourceBuffer::fromFile(entry.path().string()));
      auto& counts = perSuite[suite];
      switch (r.status) {
        case RoundTripResult::Status::Ok: ++counts[0]; break;
        case RoundTripResult::Status::Unsupported: ++counts[1]; break;
        case RoundTripResult::Status::Error:
        case RoundTripResult::Status::Mismatch:
          ++counts[2];
          ADD_FAILURE() << r.message;
          break;
      }
    }
  }
  EXPECT_GT(files, 0u);
  for (const auto& [suite, c] : perSuite)
    std::printf("%-44s ok %5zu  unsupported %3zu  failed %3zu\n", suite.c_str(), c[0], c[1], c[2]);
}

}  // namespace
}  // namespace kiln::stablehlo
