// The test runner: test files and their families, parallel loading, and the tests run
// through the check harness.
#include "testing/test_runner.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "backends/cpu/executable.h"
#include "passes/pass_manager.h"
#include "stablehlo/parser.h"
#include "support/error.h"
#include "testing/parallel_on_devices.h"

namespace kiln::testing {

namespace fs = std::filesystem;

std::vector<std::string> findTestFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().extension() == ".mlir") files.push_back(e.path().string());
    } else if (fs::exists(p)) {
      files.push_back(p);
    } else {
      throw Error(ErrorKind::Io, "no such file or directory: '" + p + "'");
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string familyOf(const std::string& file) {
  std::string stem = fs::path(file).stem().string();
  // Cut at the first part that names a dtype or a size: add_float32_5 -> add.
  static const char* kTypeWords[] = {"float", "bfloat", "complex", "int", "uint", "bool", "si", "ui", "f", "i", "c"};
  std::string family;
  size_t start = 0;
  while (start <= stem.size()) {
    size_t end = stem.find('_', start);
    std::string part = stem.substr(start, end == std::string::npos ? std::string::npos : end - start);
    bool isTypeOrSize = !part.empty() && std::isdigit(static_cast<unsigned char>(part[0]));
    for (const char* w : kTypeWords) {
      std::string word = w;
      if (part.size() > word.size() && part.compare(0, word.size(), word) == 0 &&
          std::all_of(part.begin() + static_cast<std::ptrdiff_t>(word.size()), part.end(),
                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        isTypeOrSize = true;
    }
    if (isTypeOrSize && !family.empty()) break;
    family += (family.empty() ? "" : "_") + part;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return family;
}

namespace {

struct Job {
  std::shared_ptr<const Module> module;
  std::shared_ptr<const cpu::Executable> executable;  // for the cpu backend (destroyed before the module)
  const Function* fn;
  size_t fileIndex;
};

// Prepares a module for the cpu backend and compiles its kernels.
std::shared_ptr<const cpu::Executable> compileForCpu(Module& module, const std::string& cacheDir, cpu::CompileTier tier) {
  passes::PassContext context;
  try {
    passes::runPipeline(module, cpu::cpuPipeline(), context);
  } catch (const Error& e) {
    throw Error(ErrorKind::Internal, "optimizing for cpu: " + e.format());
  }
  cpu::CompileOptions compile;
  compile.cacheDir = cacheDir;
  compile.tier = tier;
  return std::make_shared<const cpu::Executable>(module, compile);
}

}  // namespace

std::vector<TestResult> runTests(const std::vector<std::string>& files, const TestOptions& options) {
  if (options.backend != "interp" && options.backend != "cpu")
    throw Error(ErrorKind::Usage, "unknown backend '" + options.backend + "' (available: interp, cpu)");
  const bool cpu = options.backend == "cpu";
  std::vector<TestResult> results;
  std::vector<Job> jobs;
  std::mutex mutex;
  auto report = [&](TestResult r) {
    std::lock_guard<std::mutex> lock(mutex);
    if (options.onResult) options.onResult(r);
    results.push_back(std::move(r));
  };

  // Load every file (in parallel too: parsing the big testdata files takes a while).
  std::vector<std::vector<std::unique_ptr<Module>>> loaded(files.size());
  // Every module outlives its executable (a tiered compile's background thread reads the
  // module), also one without tests: declared before `compiled`, destroyed after it.
  std::vector<std::shared_ptr<const Module>> modules;
  std::vector<std::vector<std::shared_ptr<const cpu::Executable>>> compiled(files.size());
  tbb::task_arena arena(std::max(1, options.jobs));
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, files.size(), [&](size_t i) {
      try {
        loaded[i] = stablehlo::parseFile(SourceBuffer::fromFile(files[i]));
        if (options.prepare)
          for (auto& module : loaded[i]) options.prepare(*module);
        if (cpu)
          for (auto& module : loaded[i]) compiled[i].push_back(compileForCpu(*module, options.cacheDir, options.tier));
      } catch (const Error& e) {
        // A module that failed to prepare must not run unprepared (its tests could pass
        // and hide that --optimize broke it): the file's one result is the failure.
        loaded[i].clear();
        compiled[i].clear();
        TestResult r{files[i], "", familyOf(files[i])};
        r.status = e.kind() == ErrorKind::Unsupported ? TestResult::Status::Skipped : TestResult::Status::Failed;
        r.message = firstLine(e.format());
        report(std::move(r));
      }
    });
  });
  for (size_t i = 0; i < files.size(); ++i) {
    for (size_t m = 0; m < loaded[i].size(); ++m) {
      std::shared_ptr<const Module> module(std::move(loaded[i][m]));
      modules.push_back(module);
      std::shared_ptr<const cpu::Executable> executable = cpu ? compiled[i][m] : nullptr;
      for (const Function* fn : testFunctions(*module)) jobs.push_back({module, executable, fn, i});
    }
  }

  std::optional<ParallelOnDevices> parallel;
  if (options.parallelOnDevices) parallel.emplace(options.backend);
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, jobs.size(), [&](size_t j) {
      const Job& job = jobs[j];
      TestResult r{files[job.fileIndex], job.fn->name(), familyOf(files[job.fileIndex])};
      runTestFunction(*job.module, *job.fn, options.timeLimitSeconds, j, r, job.executable.get(),
                      parallel ? &*parallel : nullptr);
      report(std::move(r));
    });
  });
  if (parallel && options.parallelCounts) *options.parallelCounts = parallel->counts();
  if (cpu && options.summary) {
    BackendSummary& s = *options.summary;
    for (const auto& executables : compiled) {
      for (const auto& e : executables) {
        ++s.modules;
        s.kernels += e->numKernels();
        s.blasOps += e->numBlasOps();
        s.kernelRuns += e->nativeRuns();
        s.compileSeconds += e->compileSeconds();
        for (const auto& [reason, n] : e->declinedReasons()) s.declined[reason] += n;
      }
    }
    for (const Job& job : jobs) {
      ++s.tests;
      if (!job.executable->native().declined.empty()) ++s.testsWithFallbacks;
    }
  }
  std::sort(results.begin(), results.end(), [](const TestResult& a, const TestResult& b) {
    return std::tie(a.file, a.function) < std::tie(b.file, b.function);
  });
  return results;
}

}  // namespace kiln::testing
