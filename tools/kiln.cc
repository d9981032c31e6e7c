// The `kiln` command-line tool: subcommand dispatch and error reporting.
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <map>
#include <new>
#include <vector>

#include "support/disk_cache.h"
#include "commands.h"
#include "ir/module.h"
#include "passes/memory_limit.h"
#include "support/byte_size.h"
#include "support/error.h"

namespace kiln::tool {

SourceRef readInput(const std::string& path) {
  if (path != "-") return SourceBuffer::fromFile(path);
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  return SourceBuffer::fromString("<stdin>", std::move(text));
}

std::string entryName(const Module& module, const std::string& entry, const std::string& file) {
  std::string names;
  std::vector<const Function*> visible;
  for (const auto& f : module.functions()) {
    names += (names.empty() ? "@" : ", @") + f->name();
    if (f->visibility == Visibility::Public) visible.push_back(f.get());
  }
  const std::string wanted = entry.empty() ? "main" : entry;
  if (module.lookup(wanted)) return wanted;
  if (entry.empty() && visible.size() == 1) return visible[0]->name();
  if (names.empty()) throw Error(ErrorKind::Parse, file + " defines no functions to run");
  throw Error(ErrorKind::Usage, "no function @" + wanted + " in " + file + (entry.empty() ? " and not one public function to run instead" : "") +
                                    " (functions: " + names + "; choose one with --entry)");
}

void addCompileTierOption(CLI::App* cmd, runtime::Optimization& tier) {
  const std::map<std::string, runtime::Optimization> tiers = {{"optimized", runtime::Optimization::Full},
                                                              {"fast", runtime::Optimization::Fast},
                                                              {"tiered", runtime::Optimization::Tiered}};
  cmd->add_option("--compile-tier", tier,
                  "cpu: optimized (LLVM optimization before the first run; the default), fast (no optimization: "
                  "compiles ~10x faster, runs slower) or tiered (fast first, O2 in the background)")
      ->transform(CLI::CheckedTransformer(tiers, CLI::ignore_case));
}

void keepKernelsInTheCache(const runtime::Client& client, runtime::CompileOptions& options) {
  if (const std::string cache = defaultCacheDir(); !cache.empty() && client.plugin().name() == "cpu")
    options.namedOptions.emplace_back("kernel_cache_dir", cache);
}

runtime::CachedCompile compileProgram(const runtime::Client& client, std::string_view text,
                                      const runtime::CompileOptions& options) {
  runtime::CompileOptions withKernels = options;
  keepKernelsInTheCache(client, withKernels);
  try {
    return runtime::compileCached(client, text, withKernels, defaultCacheDir());
  } catch (const Error& e) {
    // Unlocated usage errors of a compile are about its options; the entry is the one
    // a command's user chooses.
    if (e.kind() != ErrorKind::Usage || isLocatedDiagnostic(e.message())) throw;
    throw Error(ErrorKind::Usage, e.message() + "; choose one with --entry");
  }
}

void reportFallbacks(const runtime::Executable& executable) {
  double functions = 0;
  for (const auto& [name, value] : executable.statistics())
    if (name == "interpreted_functions") functions = value;
  if (functions == 0) return;
  std::string text = executable.text("fallbacks"), lines;
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines += "kiln: note: " + text.substr(start, end - start) + "\n";
  }
  std::cerr << lines;  // one write (see main)
}

void addMemoryLimitOption(CLI::App* cmd, std::string& limit) {
  cmd->add_option("--memory-limit", limit,
                  "Refuse, when it compiles, a program whose buffers need more than this at their peak "
                  "(4G, 512M, bytes; default: KILN_MEMORY_LIMIT, else none)");
}

int64_t memoryLimitOf(const std::string& flag) {
  return flag.empty() ? passes::memoryLimitFromEnvironment() : parseByteSize(flag, "--memory-limit");
}

}  // namespace kiln::tool

namespace {

// Exit codes: 0 success; 1 bad or failing input (a parse, verify, I/O or runtime error, a
// failing test); 2 a usage error (a bad flag or option value, an unknown pass or function
// name), as grep, diff and argparse do, so a script can tell "fix the command" from "fix
// the program".
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kiln: a compiler and runtime for StableHLO and JAX-style array programs"};
  app.set_version_flag("--version", std::string("kiln ") + KILN_VERSION);
  app.require_subcommand(1);
  // Global options, accepted before or after the subcommand.
  app.fallthrough();
  int threads = 0;
  app.add_option("--threads", threads,
                 "Threads for the cpu backend's kernels and BLAS (default: every core, or KILN_NUM_THREADS)")
      ->check(CLI::Range(1, 1024));

  std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
  commands.emplace_back(nullptr, kiln::tool::addFmtCommand(app));
  commands.back().first = app.get_subcommand("fmt");
  commands.emplace_back(nullptr, kiln::tool::addRunCommand(app));
  commands.back().first = app.get_subcommand("run");
  commands.emplace_back(nullptr, kiln::tool::addTestCommand(app));
  commands.back().first = app.get_subcommand("test");
  commands.emplace_back(nullptr, kiln::tool::addCompileCommand(app));
  commands.back().first = app.get_subcommand("compile");
  commands.emplace_back(nullptr, kiln::tool::addBenchCommand(app));
  commands.back().first = app.get_subcommand("bench");
  commands.emplace_back(nullptr, kiln::tool::addGradCommand(app));
  commands.back().first = app.get_subcommand("grad");
  commands.emplace_back(nullptr, kiln::tool::addJvpCommand(app));
  commands.back().first = app.get_subcommand("jvp");
  commands.emplace_back(nullptr, kiln::tool::addVjpCommand(app));
  commands.back().first = app.get_subcommand("vjp");
  commands.emplace_back(nullptr, kiln::tool::addVmapCommand(app));
  commands.back().first = app.get_subcommand("vmap");
  commands.emplace_back(nullptr, kiln::tool::addFuzzCommand(app));
  commands.back().first = app.get_subcommand("fuzz");

  commands.emplace_back(nullptr, kiln::tool::addDevicesCommand(app));
  commands.back().first = app.get_subcommand("devices");
  commands.emplace_back(nullptr, kiln::tool::addPluginCheckCommand(app));
  commands.back().first = app.get_subcommand("plugin-check");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help text, which exits 0); its own codes (100 and
    // up) would say the kind of mistake, but callers only need "a usage error".
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  try {
    // The plugins read it when they start their threads (each plugin keeps its own copy
    // of kiln, so a setting made here in-process would not reach them).
    if (threads > 0) ::setenv("KILN_NUM_THREADS", std::to_string(threads).c_str(), 1);
    for (auto& [cmd, action] : commands)
      if (cmd->parsed()) return action();
  } catch (const kiln::Error& e) {
    std::cerr << e.format() + "\n";  // one write: mpirun forwards a rank's stderr in write-sized chunks
    return e.kind() == kiln::ErrorKind::Usage ? kExitUsage : kExitFailure;
  } catch (const std::bad_alloc&) {
    // A program that needs more memory than the machine gives: an error, not an abort.
    std::cerr << "error: resource exhausted: out of memory (a value or buffer could not be allocated; "
                 "--memory-limit refuses such programs when they compile, naming their largest buffers)\n";
    return kExitFailure;
  }
  return 0;
}
