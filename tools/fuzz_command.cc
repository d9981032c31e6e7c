// `kiln fuzz`: random programs (testing/program_generator.h) run on every executor
// (testing/differential.h) until the time or count runs out; each disagreement is
// minimized and written as a reproducer, which `kiln fuzz --replay FILE --seed S` checks
// again. A program that runs past --time-limit is written as a hang reproducer and ends
// the run. Exits 1 when any program disagreed or hung.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "testing/check_harness.h"
#include "testing/differential.h"
#include "testing/program_generator.h"

namespace kiln::tool {
namespace {

struct FuzzOptions {
  double seconds = 10;
  uint64_t seed = 1;
  int64_t count = -1;  // programs; -1: until the time runs out
  int maxOps = 10;
  std::string out = ".";
  std::string replay;
  double timeLimit = 30;  // seconds one program (with its minimization) may take
  bool print = false;     // print the programs instead of running them
};

// A crash ends the process before any reproducer is written: the signal handler prints
// which seed it was on (prepared beforehand: a handler may only write(2)), and
// `kiln fuzz --print --count 1 --seed N` shows the program.
char crashNote[160];
void onCrash(int signal) {
  if (write(2, crashNote, std::strlen(crashNote)) < 0) {}  // (nothing to do if it fails)
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}
void noteSeed(uint64_t seed) {
  std::snprintf(crashNote, sizeof crashNote,
                "\nkiln fuzz: crashed on seed %llu (kiln fuzz --print --count 1 --seed %llu shows the program)\n",
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
}

using Clock = std::chrono::steady_clock;

int replay(const FuzzOptions& o) {
  const std::string text(readInput(o.replay)->text());
  auto module = stablehlo::parseModule(SourceBuffer::fromString(o.replay, text));
  const Function* main = module->lookup("main");
  if (!main) throw Error(ErrorKind::Usage, o.replay + " has no @main");
  if (auto d = testing::disagreement(text, testing::generateInputs(*main, o.seed))) {
    std::printf("disagree: %s\n", d->c_str());
    return 1;
  }
  std::printf("every executor agrees\n");
  return 0;
}

// A program that runs too long may never stop (a kernel in an endless loop cannot be
// interrupted): the watchdog writes it as a reproducer and ends the process.
class Watchdog {
 public:
  Watchdog(double limitSeconds, std::string out) : limit_(limitSeconds), out_(std::move(out)) {
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (!done_) {
        if (!program_.empty() && std::chrono::duration<double>(Clock::now() - since_).count() > limit_) {
          const std::string path = (std::filesystem::path(out_) / ("fuzz_" + std::to_string(seed_) + "_hang.mlir")).string();
          std::filesystem::create_directories(out_);
          writeFileAtomically(path, "// kiln fuzz --replay " + path + " --seed " + std::to_string(seed_) +
                                        "\n// ran over " + std::to_string(std::llround(limit_)) + " s\n" + program_);
          std::printf("seed %llu: ran over %.0f s; written to %s\n", static_cast<unsigned long long>(seed_), limit_,
                      path.c_str());
          std::fflush(stdout);
          std::_Exit(1);
        }
        wake_.wait_for(lock, std::chrono::milliseconds(200));
      }
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  // The program now running (empty: none).
  void watch(uint64_t seed, std::string program) {
    std::lock_guard<std::mutex> lock(mutex_);
    seed_ = seed;
    program_ = std::move(program);
    since_ = Clock::now();
  }

 private:
  double limit_;
  std::string out_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  uint64_t seed_ = 0;
  std::string program_;
  Clock::time_point since_;
  std::thread thread_;
};

int fuzz(const FuzzOptions& o) {
  Watchdog watchdog(o.timeLimit, o.out);
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  testing::GeneratorOptions generator;
  generator.maxOps = o.maxOps;
  int64_t programs = 0, failures = 0;
  double reported = 0;
  for (int signal : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(signal, onCrash);
  for (uint64_t seed = o.seed; o.count < 0 ? elapsed() < o.seconds : programs < o.count; ++seed, ++programs) {
    noteSeed(seed);
    auto module = testing::generateProgram(seed, generator);
    const std::string text = stablehlo::printModule(*module);
    if (o.print) {
      std::printf("// seed %llu\n%s\n", static_cast<unsigned long long>(seed), text.c_str());
      continue;
    }
    const interp::HostValues inputs = testing::generateInputs(*module->lookup("main"), seed);
    watchdog.watch(seed, text);
    if (std::optional<std::string> d = testing::disagreement(text, inputs)) {
      ++failures;
      const std::string small = testing::minimize(
          text, [&](const std::string& candidate) { return testing::disagreement(candidate, inputs).has_value(); });
      // (every line of the message a comment: LLVM's verifier reports take several)
      std::string why = *testing::disagreement(small, inputs);
      for (size_t at = why.find('\n'); at != std::string::npos; at = why.find('\n', at + 4)) why.replace(at, 1, "\n// ");
      std::filesystem::create_directories(o.out);
      const std::string path = (std::filesystem::path(o.out) / ("fuzz_" + std::to_string(seed) + ".mlir")).string();
      writeFileAtomically(path, "// kiln fuzz --replay " + path + " --seed " + std::to_string(seed) + "\n// " + why + "\n" + small);
      std::printf("seed %llu: %s\n  minimized to %s\n", static_cast<unsigned long long>(seed),
                  testing::firstLine(*d).c_str(), path.c_str());
    }
    watchdog.watch(seed, "");
    if (elapsed() - reported >= 5) {
      reported = elapsed();
      std::printf("%lld programs, %lld disagreed, %.0f s\n", static_cast<long long>(programs + 1),
                  static_cast<long long>(failures), reported);
      std::fflush(stdout);
    }
  }
  std::printf("%lld programs (seeds %llu..%llu), %lld disagreed, %.1f s\n", static_cast<long long>(programs),
              static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(o.seed + programs - 1),
              static_cast<long long>(failures), elapsed());
  return failures == 0 ? 0 : 1;
}

}  // namespace

std::function<int()> addFuzzCommand(CLI::App& app) {
  auto o = std::make_shared<FuzzOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fuzz", "Run random programs on the interpreter, the optimizer and the plugins and compare their bits");
  cmd->add_option("--seconds", o->seconds, "How long to run (default 10)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--count", o->count, "Run this many programs instead")->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", o->seed, "The first program's seed (then seed + 1, ...); with --replay, the inputs' seed");
  cmd->add_option("--max-ops", o->maxOps, "Ops per program, at most (default 10)")->check(CLI::Range(1, 1000));
  cmd->add_option("--out", o->out, "Where reproducers are written (default .)");
  cmd->add_option("--time-limit", o->timeLimit, "Seconds one program may take before it counts as a hang (default 30)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--replay", o->replay, "Check this program (a reproducer) again instead");
  cmd->add_flag("--print", o->print, "Print the programs (each after a // seed N line) instead of running them");
  return [o] { return o->replay.empty() ? fuzz(*o) : replay(*o); };
}

}  // namespace kiln::tool
