// `kiln test PATH...`: run every test function of StableHLO test files and summarize.
#include <fstream>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "support/disk_cache.h"
#include "commands.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "testing/test_runner.h"

namespace kiln::tool {
namespace {

using testing::TestResult;
using Status = TestResult::Status;

struct TestCommandOptions {
  runtime::Optimization tier = runtime::Optimization::Full;
  std::vector<std::string> paths;
  int jobs = 1;
  double timeLimit = 60;
  std::string report;
  std::string backend = "interp";
  bool quiet = false;
  bool optimize = false;
  std::string passes;
};

const char* statusName(Status s) {
  switch (s) {
    case Status::Passed: return "passed";
    case Status::Failed: return "failed";
    case Status::Skipped: return "skipped";
  }
  return "?";
}

void writeReport(const std::string& path, const std::vector<TestResult>& results) {
  nlohmann::json j = nlohmann::json::array();
  for (const TestResult& r : results) {
    j.push_back({{"file", r.file}, {"function", r.function}, {"family", r.family},
                 {"status", statusName(r.status)}, {"message", r.message}, {"seconds", r.seconds}});
  }
  writeFileAtomically(path, j.dump(1) + "\n");
}

int runTestCommand(const TestCommandOptions& o) {
  std::vector<std::string> files = testing::findTestFiles(o.paths);
  if (files.empty()) throw Error(ErrorKind::Usage, "no .mlir files found");
  size_t done = 0;
  testing::TestOptions options;
  options.jobs = o.jobs;
  options.timeLimitSeconds = o.timeLimit;
  options.backend = o.backend;
  options.cacheDir = defaultCacheDir();
  options.optimization = o.tier;
  testing::BackendSummary summary;
  options.summary = &summary;
  if (o.optimize || !o.passes.empty()) {
    std::vector<std::string> names = passes::parsePassList(o.passes);  // unknown names fail now, once
    // Tests verify after every pass and check every buffer assignment independently.
    options.prepare = [names](Module& module) {
      passes::PassContext context;
      context.options.verifyEachPass = true;
      try {
        passes::runPipeline(module, names, context);
      } catch (const Error& e) {
        throw Error(ErrorKind::Internal, "optimizing: " + e.format());
      }
    };
  }
  options.onResult = [&](const TestResult&) {
    // Progress on long runs: a line every 500 results.
    if (!o.quiet && ++done % 500 == 0) std::cerr << "kiln test: " << done << " done\n";
  };
  testing::ParallelOnDevices::Counts parallel;
  options.parallelCounts = &parallel;
  std::vector<TestResult> results = testing::runTests(files, options);

  struct Counts {
    size_t passed = 0, failed = 0, skipped = 0;
  };
  std::map<std::string, Counts> byFamily;
  std::map<std::string, size_t> skipReasons;
  Counts total;
  for (const TestResult& r : results) {
    Counts& c = byFamily[r.family];
    switch (r.status) {
      case Status::Passed: ++c.passed, ++total.passed; break;
      case Status::Failed:
        ++c.failed, ++total.failed;
        std::cout << "FAIL " << r.file << (r.function.empty() ? "" : " @" + r.function) << ": " << r.message << "\n";
        break;
      case Status::Skipped: {
        ++c.skipped, ++total.skipped;
        size_t at = r.message.find("unsupported: ");
        std::string reason = at == std::string::npos ? r.message : r.message.substr(at + 13);
        ++skipReasons[reason.substr(0, reason.find(" ("))];
        break;
      }
    }
  }
  if (!o.quiet) {
    std::printf("\n%-36s %8s %8s %8s\n", "family", "passed", "failed", "skipped");
    for (const auto& [family, c] : byFamily)
      std::printf("%-36s %8zu %8zu %8zu\n", family.c_str(), c.passed, c.failed, c.skipped);
    for (const auto& [reason, n] : skipReasons) std::printf("skipped (%zu): unsupported %s\n", n, reason.c_str());
  }
  if (summary.statistics.count("native_kernels")) {
    // What the plugin made of the programs: how much became native code, and what its
    // interpreter still ran (and why).
    auto stat = [&](const char* name) { return summary.statistics.count(name) ? summary.statistics.at(name) : 0.0; };
    const char* name = o.backend.c_str();
    std::printf("%s: %.0f native kernels and %.0f BLAS dots in %zu modules, kernels compiled in %.1f s, run %.0f times\n",
                name, stat("native_kernels"), stat("blas_ops"), summary.modules, stat("compile_seconds"),
                stat("kernel_runs"));
    std::printf("%s: %zu of %zu tests ran some op on the interpreter (a fallback)\n", name, summary.testsWithFallbacks,
                summary.tests);
    const std::string prefix = "interpreted: ";
    if (!o.quiet)
      for (const auto& [key, n] : summary.statistics)
        if (key.rfind(prefix, 0) == 0)
          std::printf("%s: left to the interpreter (%.0f): %s\n", name, n, key.substr(prefix.size()).c_str());
  }
  if (parallel.onDevices > 0 || !parallel.onThreads.empty()) {
    size_t onThreads = 0;
    for (const auto& [why, n] : parallel.onThreads) onThreads += n;
    std::printf("interpreter.run_parallel: %zu ran as multi-device executables on %s plugin devices, %zu on the "
                "interpreter's threads\n",
                parallel.onDevices, o.backend.c_str(), onThreads);
    if (!o.quiet)
      for (const auto& [why, n] : parallel.onThreads)
        std::printf("interpreter.run_parallel on the interpreter's threads (%zu): %s\n", n, why.c_str());
  }
  if (!o.report.empty()) writeReport(o.report, results);
  std::printf("%zu passed, %zu failed", total.passed, total.failed);
  if (total.skipped) std::printf(", %zu skipped", total.skipped);
  std::printf("\n");
  return total.failed == 0 ? 0 : 1;
}

}  // namespace

std::function<int()> addTestCommand(CLI::App& app) {
  auto o = std::make_shared<TestCommandOptions>();
  CLI::App* cmd = app.add_subcommand("test", "Run the test functions (those with check ops) of StableHLO files");
  cmd->add_option("paths", o->paths, "Test files or folders (searched recursively for .mlir)")->required();
  cmd->add_option("-j,--jobs", o->jobs, "Tests to run at once")->check(CLI::Range(1, 256));
  cmd->add_option("--time-limit", o->timeLimit, "Seconds a test may run before it fails")->check(CLI::PositiveNumber);
  cmd->add_option("--report", o->report, "Write every result to this JSON file");
  cmd->add_option("--backend", o->backend, "The plugin the tests run on: interp (the reference interpreter; the default), "
                                    "cpu (native kernels, the rest interpreted) or another on KILN_PLUGIN_PATH");
  addCompileTierOption(cmd, o->tier);
  cmd->add_flag("--optimize", o->optimize, "Run the full optimization pipeline (fusion included) on every program first");
  cmd->add_option("--passes", o->passes, "Run these comma-separated passes first instead (implies --optimize; "
                                    "fixpoint(a,b,...) groups as in kiln compile)");
  cmd->add_flag("-q,--quiet", o->quiet, "Print only failures and the summary line");
  return [o] { return runTestCommand(*o); };
}

}  // namespace kiln::tool
