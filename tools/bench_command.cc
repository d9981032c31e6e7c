// `kiln bench FILE.mlir`: compile a program through a plugin, run it on seeded random
// inputs N times after a warm-up, and print the compile time (the process's first
// compile, a second one, and one from the disk cache), the median, min and max run time
// (execute to completion), and the GB/s and GFLOP/s the program's own byte and flop
// counts give at the median.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "commands.h"
#include "passes/cost_analysis.h"
#include "passes/fill_elided_constants.h"
#include "runtime/client.h"
#include "runtime/compilation_cache.h"
#include "stablehlo/parser.h"
#include "support/disk_cache.h"
#include "support/atomic_file.h"
#include "support/error.h"

namespace kiln::tool {
namespace {

struct BenchOptions {
  runtime::Optimization tier = runtime::Optimization::Full;
  std::string file;
  std::string entry;  // default: main, or the only public function
  std::string backend = "cpu";
  int runs = 10;
  uint64_t seed = 1;
  std::optional<uint64_t> fillElided;
  double scale = 1;
  std::string profile;  // a Chrome trace-event file to write
  bool report = false;  // print the steps that took longest
  std::string memoryLimit;
};

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

int runBench(const BenchOptions& o) {
  const SourceRef source = readInput(o.file);
  // The program's own byte and flop counts, from the module as written (with the filled
  // constants the compiles below get: the seed decides them).
  auto modules = stablehlo::parseFile(source);
  if (modules.size() != 1) throw Error(ErrorKind::Unsupported, "unsupported: kiln bench takes one module");
  if (o.fillElided) passes::fillElidedConstants(*modules[0], *o.fillElided);
  const std::string entry = entryName(*modules[0], o.entry, o.file);
  const Function* original = modules[0]->lookup(entry);
  passes::Cost cost = passes::costOf(*modules[0], *original);

  // Through the plugin, like any host: compiled up to four times, from the text. The
  // first compile of a process also maps in the compiler's code (libLLVM's pages) and
  // initializes it; the second is what a compile costs after that; then twice through
  // the runtime's compilation cache (the first fills it if it must, the second is what a
  // warm start costs).
  const runtime::Client client(runtime::Plugin::load(o.backend), runtime::ClientOptions{1, 0});
  const runtime::Device device = client.devices().at(0);
  runtime::CompileOptions compile;
  compile.name = source->name();
  compile.entry = entry;
  compile.optimization = o.tier;
  if (o.fillElided) compile.namedOptions.emplace_back("fill_elided_seed", std::to_string(*o.fillElided));
  if (const int64_t limit = memoryLimitOf(o.memoryLimit)) compile.namedOptions.emplace_back("memory_limit", std::to_string(limit));
  const std::string cacheDir = defaultCacheDir();
  std::optional<runtime::Executable> executable;
  auto compileOnce = [&](bool cached) {
    Clock::time_point start = Clock::now();
    runtime::Executable compiled = cached ? runtime::compileCached(client, source->text(), compile, cacheDir).executable
                                          : client.compile(source->text(), compile);
    const double took = seconds(start);  // (not the previous executable's teardown)
    executable.emplace(std::move(compiled));
    return took;
  };
  const double first = compileOnce(false), again = compileOnce(false);
  double warm = 0;
  if (!cacheDir.empty()) {
    compileOnce(true);
    warm = compileOnce(true);
  }
  reportFallbacks(*executable);

  std::mt19937_64 rng(o.seed);
  std::vector<runtime::Buffer> args;
  for (const Type& t : original->paramTypes())
    args.push_back(t.isToken() ? client.token(device) : client.bufferFromHost(randomInput(t, rng, o.scale), device));
  std::vector<const runtime::Buffer*> argPointers;
  for (const runtime::Buffer& arg : args) argPointers.push_back(&arg);
  for (const runtime::Buffer& arg : args) arg.readyEvent().await();
  // The same arguments feed every run: parameters the program marks donated
  // (jax.buffer_donor, tf.aliasing_output) are kept, and each run's results get
  // buffers of their own.
  runtime::ExecuteOptions keepArguments;
  for (size_t i = 0; i < args.size(); ++i) keepArguments.keep.push_back(static_cast<int64_t>(i));
  // A run: the execution and its completion (its results stay on the device).
  auto once = [&] {
    Clock::time_point t = Clock::now();
    executable->execute(argPointers, device, keepArguments).done.await();
    return seconds(t);
  };
  // Warm-up: first-touch pages, caches, lazy symbol resolution, and the thread pool:
  // runs until 0.2 s have passed, one at least. In a fresh process the second thread
  // often helps only after a while (why is not known: a worker's or an idle virtual
  // core's slow wake-ups): after one warm-up run, 7 runs of a 3x3 convolution at 2
  // threads took the 1-thread time in about half the processes; after 0.2 s, in none.
  double warmedUp = 0;
  do warmedUp += once();
  while (warmedUp < 0.2);
  std::vector<double> times;
  for (int i = 0; i < o.runs; ++i) times.push_back(once());
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2];
  // Times under a millisecond in microseconds, so that tiny programs show their cost.
  auto time = [](double s) {
    char buf[32];
    if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
    else std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
    return std::string(buf);
  };
  char compiled[96];
  if (!cacheDir.empty())
    std::snprintf(compiled, sizeof compiled, "compile %.1f ms (again %.1f ms, from the disk cache %.1f ms)",
                  first * 1e3, again * 1e3, warm * 1e3);
  else
    std::snprintf(compiled, sizeof compiled, "compile %.1f ms (again %.1f ms)", first * 1e3, again * 1e3);
  // The kernel threads, when the plugin says (the cpu plugin's statistic "threads").
  std::string threads;
  for (const auto& [name, value] : executable->statistics())
    if (name == "threads") threads = ", " + std::to_string(static_cast<int>(value)) + " threads";
  std::printf("%s on %s%s: %s; run median %s, min %s, max %s (%d runs)\n", o.file.c_str(), o.backend.c_str(),
              threads.c_str(), compiled, time(median).c_str(), time(times.front()).c_str(), time(times.back()).c_str(),
              o.runs);
  std::printf("  %.2f GB/s (%.1f MB moved), %.2f GFLOP/s (%.3f GFLOP)\n", cost.bytes / median / 1e9,
              cost.bytes / 1e6, cost.flops / median / 1e9, cost.flops / 1e9);
  if (!o.profile.empty() || o.report) {
    // The plugin's own records of its steps (attribute kiln_profiles): compiled once more
    // with profiling on, for runs of their own after the timed ones (recording slices
    // costs a little time).
    if (!client.plugin().says("kiln_profiles"))
      throw Error(ErrorKind::Usage, "--profile and --report need a plugin that records profiles (the " + o.backend +
                                        " plugin does not; the cpu plugin does)");
    runtime::CompileOptions profiled = compile;
    profiled.namedOptions.emplace_back("profile", "1");
    const runtime::Executable recording = client.compile(source->text(), profiled);
    for (int i = 0; i < o.runs; ++i) recording.execute(argPointers, device, keepArguments).done.await();
    if (!o.profile.empty()) {
      writeFileAtomically(o.profile, recording.text("profile"));
      std::printf("profile of %d runs written to %s (open it in Perfetto or chrome://tracing)\n", o.runs,
                  o.profile.c_str());
    }
    if (o.report) std::printf("%s", recording.text("profile_summary").c_str());
  }
  return 0;
}

}  // namespace

std::function<int()> addBenchCommand(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Benchmark a program: compile time, run times, GB/s and GFLOP/s");
  cmd->add_option("file", o->file, "The .mlir file, or - for standard input")->required();
  cmd->add_option("--entry", o->entry, "The function to run (default: main, or the only public function)");
  cmd->add_option("--backend", o->backend,
                  "The plugin to run on: cpu (the default), interp, or another on KILN_PLUGIN_PATH");
  cmd->add_option("--runs", o->runs, "Timed runs after the warm-up (runs for 0.2 s, one at least; default 10)")->check(CLI::Range(1, 100000));
  cmd->add_option("--seed", o->seed, "Seed of the random inputs");
  cmd->add_option(
      "--fill-elided", o->fillElided,
      "Fill constants the exporter left out (dense_resource<__elided__>) with random values "
      "drawn from this seed");
  cmd->add_option("--random-scale", o->scale, "Random floats are uniform in [-S, S)")->check(CLI::PositiveNumber);
  addCompileTierOption(cmd, o->tier);
  addMemoryLimitOption(cmd, o->memoryLimit);
  cmd->add_option("--profile", o->profile,
                  "Write a Chrome trace-event file of N more runs: a slice per step and per kernel chunk");
  cmd->add_flag("--report", o->report, "Print the ten steps that took longest over N more runs, with their share");
  return [o] { return runBench(*o); };
}

}  // namespace kiln::tool
