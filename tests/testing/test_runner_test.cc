// The testing layer: which functions are tests, how every way a test can end becomes a
// result (pass, failing check with where it differs, error, time limit, unsupported
// file), probes kept apart between parallel tests, the prepare hook, and test files.
#include "testing/test_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

#include "stablehlo/parser.h"
#include "support/error.h"
#include "test_paths.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using testing::TestResult;
using Status = TestResult::Status;

class TestRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kiln_test_runner_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }

  // Results by function name ("" for a file that failed to load).
  static std::map<std::string, TestResult> byFunction(const std::vector<TestResult>& results) {
    std::map<std::string, TestResult> out;
    for (const TestResult& r : results) out[r.function] = r;
    return out;
  }

  fs::path dir_;
};

const char* kChecks = R"(
func.func @passes() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  func.return
}
func.func @fails() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 3]> : tensor<2xi32>
  func.return
}
func.func @takes_a_parameter(%x: tensor<2xi32>) {
  check.expect_eq_const %x, dense<[1, 3]> : tensor<2xi32>
  func.return
}
func.func @checks_nothing() {
  func.return
}
func.func @spins() {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %r = stablehlo.while(%v = %t) : tensor<i1>
    cond {
      stablehlo.return %v : tensor<i1>
    } do {
      stablehlo.return %v : tensor<i1>
    }
  check.expect_eq_const %r, dense<true> : tensor<i1>
  func.return
}
)";

TEST_F(TestRunnerTest, TestsAreParameterlessFunctionsWithChecks) {
  auto m = stablehlo::parseModule(kChecks);
  std::vector<std::string> names;
  for (const Function* fn : testing::testFunctions(*m)) names.push_back(fn->name());
  EXPECT_EQ(names, (std::vector<std::string>{"passes", "fails", "spins"}));
}

TEST_F(TestRunnerTest, EveryEndOfATestIsAResult) {
  std::string file = write("add_int32.mlir", kChecks);
  testing::TestOptions options;
  options.timeLimitSeconds = 0.3;
  options.jobs = 2;
  std::vector<TestResult> results = testing::runTests({file}, options);
  ASSERT_EQ(results.size(), 3u);
  auto r = byFunction(results);
  EXPECT_EQ(r["passes"].status, Status::Passed) << r["passes"].message;
  EXPECT_EQ(r["fails"].status, Status::Failed);
  EXPECT_NE(r["fails"].message.find("element [1]: got 2, expected 3"), std::string::npos) << r["fails"].message;
  EXPECT_EQ(r["spins"].status, Status::Failed);
  EXPECT_NE(r["spins"].message.find("time limit"), std::string::npos) << r["spins"].message;
  for (const TestResult& t : results) {
    EXPECT_EQ(t.file, file);
    EXPECT_EQ(t.family, "add");
    EXPECT_GE(t.seconds, 0);
    EXPECT_EQ(t.message.find('\n'), std::string::npos) << "one line: " << t.message;
  }
}

TEST_F(TestRunnerTest, ProbesOfParallelTestsDoNotMix) {
  std::string text;
  for (int i = 0; i < 8; ++i) {
    std::string v = std::to_string(i);
    text += "func.func @probe" + v + "() {\n  %0 = stablehlo.constant dense<" + v +
            "> : tensor<i32>\n  %1 = interpreter.probe %0, probe_id = \"p\" : tensor<i32>\n"
            "  check.expect_serialized_eq %1, probe_id = \"p\" : tensor<i32>\n  func.return\n}\n";
  }
  testing::TestOptions options;
  options.jobs = 4;
  std::vector<TestResult> results = testing::runTests({write("probe.mlir", text)}, options);
  ASSERT_EQ(results.size(), 8u);
  for (const TestResult& r : results) EXPECT_EQ(r.status, Status::Passed) << r.function << ": " << r.message;
}

TEST_F(TestRunnerTest, FilesThatDoNotLoadAreOneResultEach) {
  std::string bad = write("bad.mlir", "func.func @f() {\n  %0 = stablehlo.add %x, %x : tensor<f32>\n}\n");
  std::string quantized =
      write("quant.mlir", "func.func @f(%a: tensor<2x!quant.uniform<i8:f32, 0.1>>) {\n  return\n}\n");
  std::vector<TestResult> results = testing::runTests({bad, quantized}, {});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].file, bad);
  EXPECT_EQ(results[0].status, Status::Failed);
  EXPECT_NE(results[0].message.find("bad.mlir:2:"), std::string::npos) << results[0].message;
  EXPECT_EQ(results[1].status, Status::Skipped);
  EXPECT_NE(results[1].message.find("unsupported: "), std::string::npos) << results[1].message;
}

TEST_F(TestRunnerTest, PrepareRunsOnEveryModuleAndItsErrorsFailTheFile) {
  std::string file = write("checks.mlir", kChecks);
  testing::TestOptions options;
  options.timeLimitSeconds = 0.3;
  int prepared = 0;
  options.prepare = [&](Module&) { ++prepared; };
  EXPECT_EQ(testing::runTests({file}, options).size(), 3u);
  EXPECT_EQ(prepared, 1);
  options.prepare = [](Module&) { throw Error(ErrorKind::Internal, "optimizing: broke it"); };
  std::vector<TestResult> results = testing::runTests({file}, options);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::Failed);
  EXPECT_NE(results[0].message.find("broke it"), std::string::npos) << results[0].message;
}

// The tests run through the plugin: its statistics of the modules it compiled reach
// the summary (the cpu plugin's native kernels, none from the interp plugin), and a
// plugin older than API 0.5 is refused with what it lacks.
TEST_F(TestRunnerTest, TestsRunThroughThePlugin) {
  std::string file = write("checks.mlir", kChecks);
  for (const char* backend : {"cpu", "interp"}) {
    testing::TestOptions options;
    options.backend = backend;
    options.timeLimitSeconds = 0.3;
    testing::BackendSummary summary;
    options.summary = &summary;
    std::vector<TestResult> results = testing::runTests({file}, options);
    auto r = byFunction(results);
    EXPECT_EQ(r["passes"].status, Status::Passed) << backend << ": " << r["passes"].message;
    EXPECT_EQ(summary.modules, 1u);
    EXPECT_EQ(summary.tests, 3u);
    if (std::string(backend) == "cpu") EXPECT_GT(summary.statistics["native_kernels"], 0) << backend;
    else EXPECT_TRUE(summary.statistics.empty()) << backend;
  }
  // A PJRT plugin without the kiln extension (as another vendor's) runs no tests: they
  // are entries of one executable, under time limits.
  testing::TestOptions plain;
  plain.backend = std::string(KILN_OTHER_PLUGINS_DIR) + "/libpjrt_plain.so";
  try {
    testing::runTests({file}, plain);
    ADD_FAILURE() << "a plugin without the kiln extension must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("has no kiln extension"), std::string::npos) << e.what();
  }
}

TEST_F(TestRunnerTest, AnUnknownBackendIsAUsageError) {
  testing::TestOptions options;
  options.backend = "tpu";
  try {
    testing::runTests({write("checks.mlir", kChecks)}, options);
    FAIL() << "an unknown backend must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("'tpu'"), std::string::npos) << e.what();
  }
}

TEST_F(TestRunnerTest, FindsMlirFilesSortedAndNamesTheirFamilies) {
  std::string b = write("sub/b.mlir", "");
  std::string a = write("a.mlir", "");
  write("notes.txt", "");
  EXPECT_EQ(testing::findTestFiles({dir_.string()}), (std::vector<std::string>{a, b}));
  EXPECT_EQ(testing::findTestFiles({b}), std::vector<std::string>{b});
  try {
    testing::findTestFiles({(dir_ / "missing").string()});
    FAIL() << "a missing path must be an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
  }
  EXPECT_EQ(testing::familyOf("x/dot_general_float32_4_3.mlir"), "dot_general");
  EXPECT_EQ(testing::familyOf("add_int8.mlir"), "add");
  EXPECT_EQ(testing::familyOf("reduce_window_i8_2.mlir"), "reduce_window");
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

// Every collective test of the StableHLO interpreter suite passes on both backends with
// its interpreter.run_parallel run as one multi-device executable on the backend's
// plugin (8 devices), the send/recv ones too (their processes run different functions and
// pass tokens), the one that reads infeed too (its values fed to the device's infeed).
class ParallelOnDevicesTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ParallelOnDevicesTest, CollectiveConformanceTests) {
  fs::path suite = testing::sharedDir() / "conformance" / "stablehlo" / "interpret";
  if (testing::sharedDir().empty() || !fs::exists(suite)) GTEST_SKIP() << "../shared is absent";
  std::vector<std::string> files;
  for (const char* name : {"all_gather", "all_reduce", "all_to_all", "collective_broadcast", "collective_permute",
                           "collective_reduce", "partition_id", "reduce_scatter", "replica_id", "send_recv", "infeed"})
    files.push_back((suite / (std::string(name) + ".mlir")).string());
  testing::TestOptions options;
  options.backend = GetParam();
  options.jobs = 2;
  testing::ParallelOnDevices::Counts counts;
  options.parallelCounts = &counts;
  std::vector<TestResult> results = testing::runTests(files, options);
  EXPECT_EQ(results.size(), 36u);
  for (const TestResult& r : results)
    EXPECT_EQ(r.status, Status::Passed) << r.file << " @" << r.function << ": " << r.message;
  EXPECT_EQ(counts.onDevices, 36u);  // send/recv too: processes entered at different functions, tokens passed
  EXPECT_TRUE(counts.onThreads.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, ParallelOnDevicesTest, ::testing::Values("interp", "cpu"));

}  // namespace
}  // namespace kiln
