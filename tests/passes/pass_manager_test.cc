// The pass manager: named passes run in order with their op counts and whether they
// changed anything recorded, fixpoint groups run until nothing changes (or their cap),
// unknown names and bad --passes syntax are usage errors naming what is wrong,
// --verify-each names the pass that broke the IR, --dump-dir writes a parsable module
// after every pass plus the fusion plan and the buffer assignment, and the report covers
// all of it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "passes/fixpoint.h"
#include "passes/pass_manager.h"
#include "passes/pass_test_util.h"

namespace kiln::passes {
namespace {

namespace fs = std::filesystem;
using test_util::count;

// @main calls @sq twice (the copies are equal) and computes one dead value.
// Ops: @sq 2 (multiply, return), @main 5 (two calls, add, negate, return).
const char* kProgram = R"(
    func.func private @sq(%a: tensor<4xf32>) -> tensor<4xf32> {
      %m = stablehlo.multiply %a, %a : tensor<4xf32>
      return %m : tensor<4xf32>
    }
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %p = func.call @sq(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %q = func.call @sq(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %r = stablehlo.add %p, %q : tensor<4xf32>
      %dead = stablehlo.negate %x : tensor<4xf32>
      return %r : tensor<4xf32>
    })";

const char* kSoftmax = R"(
    func.func private @shift(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %neg_inf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %max = stablehlo.reduce(%x init: %neg_inf) applies stablehlo.maximum across dimensions = [1]
          : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
      %max_b = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
      %shifted = stablehlo.subtract %x, %max_b : tensor<4x8xf32>
      return %shifted : tensor<4x8xf32>
    }
    func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %shifted = func.call @shift(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> loc("softmax.py":2:1)
      %e = stablehlo.exponential %shifted : tensor<4x8xf32> loc("softmax.py":3:1)
      %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
      %sum_b = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
      %y = stablehlo.divide %e, %sum_b : tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    })";

TEST(PassManagerTest, RunsTheNamedPassesInOrderAndCountsOps) {
  auto m = stablehlo::parseModule(kProgram);
  EXPECT_EQ(countOps(*m), 7);
  PassContext ctx;
  PipelineResult r = runPipeline(*m, {"inline", "cse", "dce"}, ctx);
  ASSERT_EQ(r.passes.size(), 3u);
  EXPECT_EQ(r.passes[0].name, "inline");
  EXPECT_EQ(r.passes[1].name, "cse");
  EXPECT_EQ(r.passes[2].name, "dce");
  // inline: @sq's body replaces both calls and @sq goes; cse: one multiply; dce: the negate.
  EXPECT_EQ(r.passes[0].opsBefore, 7);
  EXPECT_EQ(r.passes[0].opsAfter, 5);
  EXPECT_EQ(r.passes[1].opsBefore, 5);
  EXPECT_EQ(r.passes[1].opsAfter, 4);
  EXPECT_EQ(r.passes[2].opsBefore, 4);
  EXPECT_EQ(r.passes[2].opsAfter, 3);
  EXPECT_EQ(countOps(*m), 3);
  for (const PassStats& p : r.passes) EXPECT_GE(p.seconds, 0) << p.name;
  EXPECT_GE(r.seconds, 0);

  // In another order the counts tell another story: before inlining, CSE cannot merge
  // the calls (a call may have its callee's effects), so both multiplies stay.
  auto n = stablehlo::parseModule(kProgram);
  PassContext ctx2;
  PipelineResult r2 = runPipeline(*n, {"dce", "cse", "inline"}, ctx2);
  ASSERT_EQ(r2.passes.size(), 3u);
  EXPECT_EQ(r2.passes[0].name, "dce");
  EXPECT_EQ(r2.passes[0].opsAfter, 6);
  EXPECT_EQ(r2.passes[1].opsAfter, 6);
  EXPECT_EQ(r2.passes[2].opsAfter, 4);
  EXPECT_EQ(count(*n, ops::Multiply), 2);
}

TEST(PassManagerTest, UnknownPassNamesTheKnownOnes) {
  auto m = stablehlo::parseModule(kProgram);
  PassContext ctx;
  try {
    runPipeline(*m, {"inline", "cse", "no-such-pass"}, ctx);
    FAIL() << "an unknown pass must be an error";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("no-such-pass"), std::string::npos) << message;
    for (const std::string& name : allPassNames()) EXPECT_NE(message.find(name), std::string::npos) << name;
    EXPECT_EQ(e.kind(), ErrorKind::Usage) << "a misspelt pass is the caller's mistake, not an I/O failure";
  }
  EXPECT_EQ(countOps(*m), 7) << "no pass ran";
  EXPECT_EQ(count(*m, ops::FuncCall), 2);
  EXPECT_THROW(createPass(""), Error);
  EXPECT_EQ(allPassNames().size(), 10u);
  for (const std::string& name : defaultPipeline()) EXPECT_EQ(createPass(name)->name(), name);
}

// ---- What each pass reports ------------------------------------------------------

// Runs pass `name` on `m` and returns what it reported.
bool changes(const std::string& name, Module& m) {
  PassContext ctx;
  return createPass(name)->run(m, ctx);
}

TEST(PassResultTest, CleanupPassesReportAChangeOnlyWhenThereIsOne) {
  auto m = stablehlo::parseModule(kProgram);
  EXPECT_FALSE(changes("cse", *m)) << "before inlining the calls are not mergeable";
  EXPECT_TRUE(changes("inline", *m));
  EXPECT_FALSE(changes("inline", *m)) << "no call is left";
  EXPECT_TRUE(changes("cse", *m));
  EXPECT_FALSE(changes("cse", *m));
  EXPECT_TRUE(changes("dce", *m));
  EXPECT_FALSE(changes("dce", *m));
  EXPECT_FALSE(changes("simplify", *m)) << "x*x + x*x has no rule";
  EXPECT_FALSE(changes("fold", *m)) << "nothing is constant";
  EXPECT_FALSE(changes("buffers", *m)) << "an analysis";
  EXPECT_EQ(countOps(*m), 3);

  // Inlining that only drops a private function nobody calls still changed the module.
  auto unused = stablehlo::parseModule(R"(
    func.func private @unused(%a: tensor<f32>) -> tensor<f32> {
      return %a : tensor<f32>
    }
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      return %x : tensor<f32>
    })");
  EXPECT_TRUE(changes("inline", *unused));
  EXPECT_EQ(unused->lookup("unused"), nullptr);
}

TEST(PassResultTest, SimplifyFoldFusionAndScheduleReportTheirChanges) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %two = stablehlo.constant dense<2.0> : tensor<4xf32>
      %three = stablehlo.constant dense<3.0> : tensor<4xf32>
      %six = stablehlo.multiply %two, %three : tensor<4xf32>
      %y = stablehlo.add %x, %six : tensor<4xf32>
      %z = stablehlo.negate %y : tensor<4xf32>
      %w = stablehlo.negate %z : tensor<4xf32>
      return %w : tensor<4xf32>
    })");
  EXPECT_TRUE(changes("simplify", *m)) << "-(-y) is y";
  EXPECT_FALSE(changes("simplify", *m));
  EXPECT_TRUE(changes("fold", *m)) << "2 * 3";
  EXPECT_FALSE(changes("fold", *m));
  EXPECT_EQ(count(*m, ops::Multiply), 0);

  auto softmax = stablehlo::parseModule(kSoftmax);
  EXPECT_TRUE(changes("inline", *softmax));
  EXPECT_TRUE(changes("fusion", *softmax));
  EXPECT_GT(count(*softmax, ops::Fusion), 0);
  auto single = stablehlo::parseModule("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                       "  %y = stablehlo.negate %x : tensor<4xf32>\n"
                                       "  return %y : tensor<4xf32>\n}");
  EXPECT_FALSE(changes("fusion", *single)) << "one op forms no kernel";

  // The 4 KiB broadcast is defined first; the scheduler puts the small negate first
  // (less live while the other runs), and then finds nothing more to move.
  auto order = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<4xf32>, %s: tensor<f32>) -> (tensor<1024xf32>, tensor<4xf32>) {
      %big = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<1024xf32>
      %n = stablehlo.negate %x : tensor<4xf32>
      return %big, %n : tensor<1024xf32>, tensor<4xf32>
    })");
  EXPECT_TRUE(changes("schedule", *order));
  EXPECT_TRUE(order->lookup("main")->body().ops().front()->is(ops::Negate));
  EXPECT_FALSE(changes("schedule", *order));
  EXPECT_FALSE(changes("buffers", *order));
}

TEST(PassResultTest, PipelineStatsRecordChangedAndTheReportPrintsIt) {
  auto m = stablehlo::parseModule(kProgram);
  PassContext ctx;
  PipelineResult r = runPipeline(*m, {"inline", "cse", "cse", "buffers"}, ctx);
  ASSERT_EQ(r.passes.size(), 4u);
  EXPECT_TRUE(r.passes[0].changed);
  EXPECT_TRUE(r.passes[1].changed);
  EXPECT_FALSE(r.passes[2].changed);
  EXPECT_FALSE(r.passes[3].changed);
  EXPECT_EQ(r.passes[0].rounds, 0) << "not a group";
  std::string report = pipelineReport(r, ctx);
  EXPECT_NE(report.find("ops 7 -> 5  changed\n"), std::string::npos) << report;
  EXPECT_NE(report.find("ops 4 -> 4  unchanged\n"), std::string::npos) << report;
}

// ---- Fixpoint groups --------------------------------------------------------------

// Reports a change on its first `changes` runs (-1: always); counts its runs.
class ChangingPass : public Pass {
 public:
  ChangingPass(std::string name, int changes, int& runs) : name_(std::move(name)), changes_(changes), runs_(runs) {}
  std::string_view name() const override { return name_; }
  bool run(Module&, PassContext&) override {
    bool changed = changes_ < 0 || runs_ < changes_;
    ++runs_;
    return changed;
  }

 private:
  std::string name_;
  int changes_;
  int& runs_;
};

TEST(FixpointTest, StopsAfterTheFirstRoundInWhichNothingChanged) {
  int aRuns = 0, bRuns = 0;
  std::vector<std::unique_ptr<Pass>> inner;
  inner.push_back(std::make_unique<ChangingPass>("a", 2, aRuns));
  inner.push_back(std::make_unique<ChangingPass>("b", 0, bRuns));
  FixpointPass group(std::move(inner));
  EXPECT_EQ(group.name(), "fixpoint(a,b)");
  auto m = stablehlo::parseModule(kProgram);
  PassContext ctx;
  EXPECT_TRUE(group.run(*m, ctx));
  EXPECT_EQ(group.rounds(), 3) << "two rounds with a change, one quiet round";
  EXPECT_TRUE(group.converged());
  EXPECT_EQ(aRuns, 3);
  ASSERT_EQ(group.runs().size(), 6u);
  EXPECT_EQ(group.runs()[4].name, "a");
  EXPECT_TRUE(group.runs()[2].changed);
  EXPECT_FALSE(group.runs()[4].changed);

  // Nothing to do: one round, no change.
  int cRuns = 0;
  std::vector<std::unique_ptr<Pass>> quiet;
  quiet.push_back(std::make_unique<ChangingPass>("c", 0, cRuns));
  FixpointPass idle(std::move(quiet));
  EXPECT_FALSE(idle.run(*m, ctx));
  EXPECT_EQ(idle.rounds(), 1);
  EXPECT_EQ(cRuns, 1);
}

TEST(FixpointTest, TheCapHoldsAndTheReportSaysSo) {
  int runs = 0;
  std::vector<std::unique_ptr<Pass>> inner;
  inner.push_back(std::make_unique<ChangingPass>("forever", -1, runs));
  std::vector<std::unique_ptr<Pass>> pipeline;
  pipeline.push_back(std::make_unique<FixpointPass>(std::move(inner)));
  auto m = stablehlo::parseModule(kProgram);
  PassContext ctx;
  PipelineResult r = runPipeline(*m, std::move(pipeline), ctx);
  EXPECT_EQ(runs, FixpointPass::kDefaultMaxRounds);
  ASSERT_EQ(r.passes.size(), 1u);
  EXPECT_EQ(r.passes[0].rounds, FixpointPass::kDefaultMaxRounds);
  EXPECT_FALSE(r.passes[0].converged);
  EXPECT_TRUE(r.passes[0].changed);
  EXPECT_EQ(r.passes[0].inner.size(), size_t(FixpointPass::kDefaultMaxRounds));
  std::string report = pipelineReport(r, ctx);
  EXPECT_NE(report.find("8 rounds (stopped at the cap, still changing)"), std::string::npos) << report;
  EXPECT_NE(report.find("r8 forever"), std::string::npos) << report;

  int fewRuns = 0;
  std::vector<std::unique_ptr<Pass>> few;
  few.push_back(std::make_unique<ChangingPass>("forever", -1, fewRuns));
  FixpointPass capped(std::move(few), 3);
  EXPECT_TRUE(capped.run(*m, ctx));
  EXPECT_EQ(capped.rounds(), 3);
  EXPECT_EQ(fewRuns, 3);
  EXPECT_THROW(FixpointPass({}, 3), Error);
}

// fold makes the multiplier a constant 1 only after simplify ran; a second simplify
// round then removes x * 1, and a third round finds nothing.
TEST(FixpointTest, SimplifyAndFoldFeedEachOtherUntilNothingChanges) {
  const char* program = R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %three = stablehlo.constant dense<3.0> : tensor<4xf32>
      %two = stablehlo.constant dense<2.0> : tensor<4xf32>
      %one = stablehlo.subtract %three, %two : tensor<4xf32>
      %y = stablehlo.multiply %x, %one : tensor<4xf32>
      return %y : tensor<4xf32>
    })";
  auto m = stablehlo::parseModule(program);
  PassContext ctx;
  PipelineResult r = runPipeline(*m, {"fixpoint(simplify,fold)"}, ctx);
  ASSERT_EQ(r.passes.size(), 1u);
  const PassStats& group = r.passes[0];
  EXPECT_EQ(group.rounds, 3);
  EXPECT_TRUE(group.converged);
  EXPECT_TRUE(group.changed);
  std::vector<bool> changed;
  for (const PassStats& p : group.inner) changed.push_back(p.changed);
  EXPECT_EQ(changed, (std::vector<bool>{false, true, true, false, false, false}));
  EXPECT_EQ(count(*m, ops::Multiply), 0);
  EXPECT_EQ(count(*m, ops::Subtract), 0);
  std::string report = pipelineReport(r, ctx);
  EXPECT_NE(report.find("fixpoint(simplify,fold)"), std::string::npos) << report;
  EXPECT_NE(report.find("changed, 3 rounds\n"), std::string::npos) << report;
  EXPECT_NE(report.find("r2 simplify"), std::string::npos) << report;
}

TEST(PassListTest, ParsesGroupsAndCanonicalizesTheirNames) {
  EXPECT_EQ(parsePassList("inline,fixpoint(simplify,fold),cse"),
            (std::vector<std::string>{"inline", "fixpoint(simplify,fold)", "cse"}));
  EXPECT_EQ(parsePassList(" inline , fixpoint( simplify , fold ) ,,dce"),
            (std::vector<std::string>{"inline", "fixpoint(simplify,fold)", "dce"}));
  EXPECT_EQ(parsePassList("fixpoint(cse,fixpoint(simplify,fold))"),
            (std::vector<std::string>{"fixpoint(cse,fixpoint(simplify,fold))"}));
  EXPECT_EQ(parsePassList(""), defaultPipeline());
  EXPECT_EQ(createPass("fixpoint(simplify,fold)")->name(), "fixpoint(simplify,fold)");
  for (const std::string& name : defaultPipeline()) EXPECT_EQ(parsePassList(name), std::vector<std::string>{name});
  // simplify is listed once: the group repeats it as often as it helps.
  std::vector<std::string> pipeline = defaultPipeline();
  EXPECT_EQ(std::count(pipeline.begin(), pipeline.end(), "simplify"), 0);
  EXPECT_EQ(std::count(pipeline.begin(), pipeline.end(), "fixpoint(simplify,fold)"), 1);
}

TEST(PassListTest, BadSyntaxIsAUsageErrorThatSaysWhat) {
  const std::pair<const char*, const char*> cases[] = {
      {"inline,fixpoint(simplify,fold", "unclosed '('"},
      {"simplify),cse", "unmatched ')'"},
      {"fixpoint()", "empty fixpoint group"},
      {"fixpoint( , )", "empty fixpoint group"},
      {"cse(dce)", "only fixpoint(...) takes a list of passes"},
      {"fixpoint(bogus)", "unknown pass 'bogus'"},
      {"fixpoint(cse)dce", "bad fixpoint group"},
      {"fixpointx(cse)", "bad fixpoint group"},
      {"fixpoint(cse)(dce)", "unmatched ')'"},
  };
  for (const auto& [list, expected] : cases) {
    try {
      parsePassList(list);
      ADD_FAILURE() << "'" << list << "' must be refused";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage) << list;
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << list << ": " << e.what();
    }
  }
  EXPECT_THROW(createPass("cse,dce"), Error) << "one pass, not a list";
}

// Test-only passes: one that breaks the IR (an add whose result type is wrong), one that
// counts how often it ran.
class CorruptPass : public Pass {
 public:
  std::string_view name() const override { return "corrupt"; }
  bool run(Module& module, PassContext&) override {
    walk(module.lookup("main")->body(), [](Op& op) {
      if (op.is(ops::Add)) op.result()->setType(Type::tensor(DType::I32, {4}));
    });
    return true;
  }
};

class CountingPass : public Pass {
 public:
  explicit CountingPass(int& runs) : runs_(runs) {}
  std::string_view name() const override { return "counting"; }
  bool run(Module&, PassContext&) override {
    ++runs_;
    return false;
  }

 private:
  int& runs_;
};

std::vector<std::unique_ptr<Pass>> corruptingPipeline(int& runs) {
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(createPass("inline"));
  passes.push_back(std::make_unique<CountingPass>(runs));
  passes.push_back(std::make_unique<CorruptPass>());
  passes.push_back(std::make_unique<CountingPass>(runs));
  return passes;
}

TEST(PassManagerTest, VerifyEachPassNamesThePassThatBrokeTheModule) {
  auto m = stablehlo::parseModule(kProgram);
  PassContext ctx;
  ctx.options.verifyEachPass = true;
  int runs = 0;
  try {
    runPipeline(*m, corruptingPipeline(runs), ctx);
    FAIL() << "the corrupted module must not pass the verifier";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("after pass 'corrupt'"), std::string::npos) << message;
    EXPECT_EQ(e.kind(), ErrorKind::Internal);
  }
  EXPECT_EQ(runs, 1) << "the pipeline stops at the pass that broke it";

  // Without verification the pipeline runs on (and the verifier then finds the damage).
  auto n = stablehlo::parseModule(kProgram);
  PassContext quiet;
  runs = 0;
  PipelineResult r;
  EXPECT_NO_THROW(r = runPipeline(*n, corruptingPipeline(runs), quiet));
  EXPECT_EQ(runs, 2);
  ASSERT_EQ(r.passes.size(), 4u);
  EXPECT_EQ(r.passes[2].name, "corrupt");
  EXPECT_THROW(verifyModule(*n), Error);
}

TEST(FixpointTest, VerifyEachPassNamesTheInnerPass) {
  std::vector<std::unique_ptr<Pass>> inner;
  inner.push_back(createPass("simplify"));
  inner.push_back(std::make_unique<CorruptPass>());
  std::vector<std::unique_ptr<Pass>> pipeline;
  pipeline.push_back(std::make_unique<FixpointPass>(std::move(inner)));
  auto m = stablehlo::parseModule(kProgram);
  PassContext ctx;
  ctx.options.verifyEachPass = true;
  try {
    runPipeline(*m, std::move(pipeline), ctx);
    FAIL() << "the corrupted module must not pass the verifier";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("after pass 'corrupt'"), std::string::npos) << e.what();
  }
}

TEST(PassManagerTest, VerifyEachPassAcceptsTheDefaultPipeline) {
  auto before = stablehlo::parseModule(kSoftmax);
  auto m = stablehlo::parseModule(kSoftmax);
  PassContext ctx;
  ctx.options.verifyEachPass = true;
  PipelineResult r;
  EXPECT_NO_THROW(r = runPipeline(*m, defaultPipeline(), ctx));
  EXPECT_EQ(r.passes.size(), defaultPipeline().size());
  interp::HostValues args = {test_util::ordinaryValues(m->lookup("main")->param(0)->type(), 0)};
  test_util::expectBitIdentical(interp::Interpreter(*before).call("main", args),
                                interp::Interpreter(*m).call("main", args), stablehlo::printModule(*m));
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class DumpDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kiln_pass_manager_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(DumpDirTest, WritesTheModuleAfterEveryPassAndTheProducts) {
  auto m = stablehlo::parseModule(kSoftmax);
  PassContext ctx;
  ctx.options.dumpDir = (dir_ / "nested" / "dump").string();  // created as needed
  std::vector<std::string> names = defaultPipeline();
  runPipeline(*m, names, ctx);
  fs::path dump = ctx.options.dumpDir;

  // A group's file name has no parentheses or commas (no quoting in a shell).
  std::vector<std::string> expected = {"00-input.mlir",    "01-inline.mlir",   "02-lower-chlo.mlir",
                                       "03-fixpoint-simplify-fold.mlir", "04-cse.mlir",
                                       "05-dce.mlir",      "06-fusion.mlir",   "07-schedule.mlir",
                                       "08-buffers.mlir"};
  ASSERT_EQ(expected.size(), names.size() + 1);
  expected.push_back("fusion-plan.txt");
  expected.push_back("buffer-assignment.txt");
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dump)) found.push_back(entry.path().filename().string());
  std::sort(found.begin(), found.end());
  std::vector<std::string> sortedExpected = expected;
  std::sort(sortedExpected.begin(), sortedExpected.end());
  EXPECT_EQ(found, sortedExpected);

  for (const std::string& file : expected) {
    if (file.ends_with(".txt")) continue;
    std::string text = readFile(dump / file);
    ASSERT_FALSE(text.empty()) << file;
    std::unique_ptr<Module> parsed;
    EXPECT_NO_THROW(parsed = stablehlo::parseModule(text)) << file << ":\n" << text;
    if (parsed) {
      EXPECT_NO_THROW(verifyModule(*parsed)) << file;
    }
  }
  EXPECT_NE(readFile(dump / "00-input.mlir").find("call @shift"), std::string::npos);
  EXPECT_EQ(readFile(dump / "01-inline.mlir").find("call @"), std::string::npos);
  EXPECT_NE(readFile(dump / "06-fusion.mlir").find("kiln.fusion"), std::string::npos);
  EXPECT_EQ(readFile(dump / expected[names.size()]), stablehlo::printModule(*m)) << "the last dump is the result";

  std::string plan = readFile(dump / "fusion-plan.txt");
  EXPECT_EQ(plan, ctx.fusionPlan.str());
  EXPECT_NE(plan.find("7 kernels before, 3 after"), std::string::npos) << plan;
  std::string buffers = readFile(dump / "buffer-assignment.txt");
  EXPECT_NE(buffers.find("buffer assignment of @main"), std::string::npos) << buffers;
  EXPECT_NE(buffers.find("peak live"), std::string::npos) << buffers;
}

TEST(PassManagerTest, ReportCoversPassesFusionAndBuffers) {
  auto m = stablehlo::parseModule(kSoftmax);
  PassContext ctx;
  PipelineResult r = runPipeline(*m, defaultPipeline(), ctx);
  std::string report = pipelineReport(r, ctx);
  for (const std::string& name : defaultPipeline()) EXPECT_NE(report.find("  " + name + " "), std::string::npos) << name;
  for (const PassStats& p : r.passes)
    EXPECT_NE(report.find("ops " + std::to_string(p.opsBefore) + " -> " + std::to_string(p.opsAfter)),
              std::string::npos)
        << p.name << "\n"
        << report;
  EXPECT_NE(report.find("fusion: 7 kernels before, 3 after"), std::string::npos) << report;
  for (const FusionDecision& d : ctx.fusionPlan.decisions) EXPECT_NE(report.find(d.why), std::string::npos) << d.why;
  ASSERT_EQ(ctx.buffers.size(), 1u);
  EXPECT_NE(report.find("buffers of @main"), std::string::npos) << report;
  EXPECT_NE(report.find("live at peak"), std::string::npos) << report;
  // The figures, in the report's units (all of them are below 1 KiB here).
  const BufferAssignment& b = ctx.buffers[0];
  ASSERT_LT(b.totalValueBytes, 1024);
  EXPECT_NE(report.find("values " + std::to_string(b.totalValueBytes) + " B"), std::string::npos) << report;
  EXPECT_NE(report.find("peak live " + std::to_string(b.peakLiveBytes) + " B"), std::string::npos) << report;
  EXPECT_NE(report.find("arena " + std::to_string(b.arenaBytes) + " B"), std::string::npos) << report;
  // The exponential's line survives inlining and fusion into the report.
  EXPECT_NE(report.find("softmax.py"), std::string::npos) << report;
}

}  // namespace
}  // namespace kiln::passes
