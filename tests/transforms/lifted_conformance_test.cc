// The consistency of jvp and vjp on programs nobody wrote for them: every program of the
// stablehlo `testdata/` suite, its input constants lifted into parameters
// (testing/lift_constants.h) and promoted to f64, must satisfy <u, J·v> = <Jᵀ·u, v> at
// its own inputs for random u and v. Programs that use an op without a rule are counted
// by op (the list shrinks as rules land); a floor keeps the number checked from falling.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "stablehlo/parser.h"
#include "support/error.h"
#include "test_paths.h"
#include "testing/adjoint_check.h"
#include "testing/lift_constants.h"

namespace kiln::transforms {
namespace {

namespace fs = std::filesystem;
using interp::HostValues;

// Programs checked today; raise it as rules land.
constexpr int kCheckedFloor = 748;

// "checked", "mismatch ...", or why the program was not checked.
std::string checkProgram(const fs::path& path) {
  auto module = stablehlo::parseModule(SourceBuffer::fromFile(path.string()));
  Function* f = module->lookup("main");
  if (!f) return "skipped: no @main";
  std::vector<Literal> lifted = kiln::testing::liftConstants(*module, *f);
  HostValues inputs(lifted.begin(), lifted.end());
  // (a loop bound for the convergence loops: igamma's take 2000 iterations at most)
  kiln::testing::AdjointCheck check = kiln::testing::checkAdjoint(*module, "main", inputs, 3, {2048});
  switch (check.outcome) {
    case kiln::testing::AdjointCheck::Outcome::Consistent: return "checked";
    case kiln::testing::AdjointCheck::Outcome::Inconsistent: return "mismatch: " + check.message;
    case kiln::testing::AdjointCheck::Outcome::Skipped: break;
  }
  return "skipped: " + check.message;
}

TEST(LiftedConformanceTest, JvpAndVjpAgreeOnEveryTestdataProgram) {
  fs::path dir = kiln::testing::sharedDir() / "conformance" / "stablehlo" / "testdata";
  if (kiln::testing::sharedDir().empty() || !fs::exists(dir)) GTEST_SKIP() << "../shared/conformance is absent";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".mlir") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, int> outcomes;
  int checked = 0;
  for (const fs::path& file : files) {
    std::string outcome;
    try {
      outcome = checkProgram(file);
    } catch (const Error& e) {
      outcome = e.message();
      // "unsupported: jvp of stablehlo.sort (line 3)" is counted as "...stablehlo.sort".
      if (size_t at = outcome.find(" ("); at != std::string::npos && outcome.starts_with("unsupported"))
        outcome = outcome.substr(0, at);
    }
    if (outcome.starts_with("mismatch")) ADD_FAILURE() << file.filename() << ": " << outcome;
    if (std::getenv("KILN_LIFTED_VERBOSE")) std::printf("%s: %s\n", file.filename().c_str(), outcome.c_str());
    checked += outcome == "checked";
    outcomes[outcome.starts_with("mismatch") ? "mismatch" : outcome]++;
  }
  for (const auto& [what, n] : outcomes) std::printf("[ measured ] %5d  %s\n", n, what.c_str());
  std::printf("[ measured ] %d of %zu programs checked\n", checked, files.size());
  EXPECT_GE(checked, kCheckedFloor);
}

}  // namespace
}  // namespace kiln::transforms
