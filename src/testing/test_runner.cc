// The test runner: test files and their families, parallel loading and compiling
// through the backend's plugin, and the tests run through the check harness.
#include "testing/test_runner.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include <unistd.h>

#include <optional>

#include "ir/ops/testing.h"
#include "runtime/compilation_cache.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
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

// A test and where it runs: as an execution of its own entry through the plugin, or
// (a test that holds an interpreter.run_parallel) on the host's interpreter.
struct Job {
  std::shared_ptr<const Module> module;
  std::shared_ptr<const runtime::Executable> executable;  // null: on the host's interpreter
  const Function* fn;
  size_t fileIndex;
  size_t moduleIndex;  // in `compiled`, for the summary
  std::string probeDir;  // a folder of its own, for a test that writes probes
};

bool holds(const Function& fn, OpCode code) {
  bool found = false;
  walk(fn.body(), [&](Op& op) { found = found || op.is(code); });
  return found;
}

// The text a module of `file` is compiled from: the part of the file as written (behind
// as many newlines as lines precede it, so that positions are the file's), or the
// prepared module printed.
std::string programText(const SourceRef& file, const std::pair<size_t, size_t>& part, const Module& module, bool prepared) {
  if (prepared) return stablehlo::printModule(module);
  const std::string_view text = file->text();
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(part.first), '\n'));
  return std::string(lines, '\n') + std::string(text.substr(part.first, part.second - part.first));
}

// A folder of its own for the probes (interpreter.probe, check.expect_serialized_eq) of
// test `test` of file `file`.
std::string probeFolder(size_t file, size_t test) {
  return (fs::temp_directory_path() /
          ("kiln-probe-" + std::to_string(::getpid()) + "-" + std::to_string(file) + "-" + std::to_string(test)))
      .string();
}

}  // namespace

std::vector<TestResult> runTests(const std::vector<std::string>& files, const TestOptions& options) {
  const runtime::Client client(runtime::Plugin::load(options.backend),
                               runtime::ClientOptions{std::max(1, options.jobs), 0});  // a device per job
  client.plugin().requireExtension("running tests on it (each test is an entry of its module's executable, under a time limit)");
  const std::vector<runtime::Device> devices = client.devices();
  std::vector<TestResult> results;
  std::vector<Job> jobs;
  std::mutex mutex;
  auto report = [&](TestResult r) {
    std::lock_guard<std::mutex> lock(mutex);
    if (options.onResult) options.onResult(r);
    results.push_back(std::move(r));
  };
  auto compileOptions = [&](const std::string& file, const std::string& entry) {
    runtime::CompileOptions compile;
    compile.name = file;
    compile.entry = entry;
    compile.optimization = options.optimization;
    return compile;
  };

  // Load, prepare and compile every file (in parallel: parsing the big testdata files
  // and compiling take a while). Each module with tests is compiled once, at its first
  // test; its other tests are entries of the same executable. A test that writes probes
  // gets an executable of its own, whose probes go to its own folder.
  struct Loaded {
    std::vector<std::shared_ptr<const Module>> modules;
    std::vector<std::optional<runtime::Executable>> compiled;  // per module; none without tests
    std::vector<Job> jobs;
  };
  std::vector<Loaded> loaded(files.size());
  tbb::task_arena arena(std::max(1, options.jobs));
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, files.size(), [&](size_t i) {
      try {
        const SourceRef source = SourceBuffer::fromFile(files[i]);
        std::vector<std::unique_ptr<Module>> modules = stablehlo::parseFile(source);
        const auto parts = stablehlo::splitInputFile(source->text());
        for (size_t m = 0; m < modules.size(); ++m) {
          if (options.prepare) options.prepare(*modules[m]);
          std::shared_ptr<const Module> module(std::move(modules[m]));
          loaded[i].modules.push_back(module);
          loaded[i].compiled.emplace_back();
          const std::vector<const Function*> tests = testFunctions(*module);
          if (tests.empty()) continue;
          const std::string text = programText(source, parts.at(m), *module, static_cast<bool>(options.prepare));
          const runtime::Executable& base = loaded[i].compiled.back().emplace(
              runtime::compileCached(client, text, compileOptions(files[i], tests[0]->name()), options.cacheDir).executable);
          for (const Function* fn : tests) {
            Job job{module, nullptr, fn, i, loaded[i].compiled.size() - 1};
            if (holds(*fn, ops::InterpreterRunParallel)) {
              // On the host's interpreter, which hands its run_parallel to the plugin.
            } else if (holds(*fn, ops::InterpreterProbe) || holds(*fn, ops::CheckExpectSerializedEq)) {
              job.probeDir = probeFolder(i, loaded[i].jobs.size());
              runtime::CompileOptions own = compileOptions(files[i], fn->name());
              own.namedOptions = {{"probe_dir", job.probeDir}};
              job.executable = std::make_shared<const runtime::Executable>(client.compile(text, own));
            } else {
              job.executable = std::make_shared<const runtime::Executable>(fn == tests[0] ? base : base.withEntry(fn->name()));
            }
            loaded[i].jobs.push_back(std::move(job));
          }
        }
      } catch (const Error& e) {
        // A module that failed to prepare or compile must not run another way (its tests
        // could pass and hide that --optimize broke it): the file's one result is the
        // failure, or the skip when kiln does not support what it uses.
        loaded[i] = Loaded{};
        TestResult r{files[i], "", familyOf(files[i])};
        r.status = e.kind() == ErrorKind::Unsupported ? TestResult::Status::Skipped : TestResult::Status::Failed;
        r.message = firstLine(e.format());
        report(std::move(r));
      }
    });
  });
  for (Loaded& l : loaded)
    for (Job& job : l.jobs) jobs.push_back(std::move(job));

  std::optional<ParallelOnDevices> parallel;
  if (options.parallelOnDevices) parallel.emplace(options.backend);
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, jobs.size(), [&](size_t j) {
      const Job& job = jobs[j];
      TestResult r{files[job.fileIndex], job.fn->name(), familyOf(files[job.fileIndex])};
      if (job.executable) {
        // The device of this worker (one per job slot), so that tests run side by side.
        const int slot = std::max(0, tbb::this_task_arena::current_thread_index());
        std::error_code ignored;
        if (!job.probeDir.empty()) fs::create_directories(job.probeDir, ignored);
        runTestExecution(*job.executable, devices[static_cast<size_t>(slot) % devices.size()], options.timeLimitSeconds, r);
        if (!job.probeDir.empty()) fs::remove_all(job.probeDir, ignored);
      } else {
        runTestFunction(*job.module, *job.fn, options.timeLimitSeconds, j, r, parallel ? &*parallel : nullptr);
      }
      report(std::move(r));
    });
  });
  if (parallel && options.parallelCounts) *options.parallelCounts = parallel->counts();
  if (options.summary) {
    BackendSummary& s = *options.summary;
    std::vector<std::vector<bool>> interpreted(loaded.size());
    for (size_t i = 0; i < loaded.size(); ++i) {
      for (const std::optional<runtime::Executable>& executable : loaded[i].compiled) {
        interpreted[i].push_back(false);
        if (!executable) continue;
        ++s.modules;
        for (const auto& [name, value] : executable->statistics()) {
          s.statistics[name] += value;
          if (name == "interpreted_ops" && value > 0) interpreted[i].back() = true;
        }
      }
    }
    for (const Job& job : jobs) {
      ++s.tests;
      if (interpreted[job.fileIndex][job.moduleIndex]) ++s.testsWithFallbacks;
    }
  }
  std::sort(results.begin(), results.end(), [](const TestResult& a, const TestResult& b) {
    return std::tie(a.file, a.function) < std::tie(b.file, b.function);
  });
  return results;
}

}  // namespace kiln::testing
