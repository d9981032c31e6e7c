// The subcommands of the `kiln` tool: each registers its options and its action.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <random>
#include <string>

#include "ir/literal.h"
#include "ir/module.h"
#include "runtime/compilation_cache.h"
#include "support/source.h"

namespace kiln::tool {

// Reads FILE, or standard input for "-".
SourceRef readInput(const std::string& path);

// The function a command runs: `entry` when given, else @main, else the module's only
// public function; otherwise a usage error that names the functions there are.
std::string entryName(const Module& module, const std::string& entry, const std::string& file);

// An input drawn from a seeded generator: floats uniform in [-scale, scale), complex
// parts likewise, integers in [0, 10), booleans half true; the same seed gives the same
// inputs.
Literal randomInput(const Type& type, std::mt19937_64& rng, double scale = 1);

// --compile-tier optimized|fast|tiered: the plugin's optimization level (kiln.optimization;
// the cpu plugin's: how much LLVM optimizes the kernels before the first run).
void addCompileTierOption(CLI::App* cmd, runtime::Optimization& tier);

// Adds the cpu plugin's compile option kernel_cache_dir (kernels' machine code kept in
// defaultCacheDir(), so that a program sharing kernels with one compiled before compiles
// only its new ones); nothing for other plugins or with the cache off.
void keepKernelsInTheCache(const runtime::Client& client, runtime::CompileOptions& options);

// How a command compiles a program through a plugin: from the disk cache when it can
// (runtime/compilation_cache.h, in defaultCacheDir()), with the kernels kept there too,
// and an unknown or ambiguous entry function is a usage error that names --entry.
runtime::CachedCompile compileProgram(const runtime::Client& client, std::string_view text,
                                      const runtime::CompileOptions& options);

// Prints to stderr, for each function the plugin runs through its interpreter (the
// statistic "interpreted_functions", the text "fallbacks"), a line naming the op that
// sent it there, the op's source line and why: an op without native code still runs,
// but never silently slowly.
void reportFallbacks(const runtime::Executable& executable);

// --memory-limit SIZE ("4G", "512M", bytes): a program whose buffers need more at their
// peak is refused when it compiles (passes/memory_limit.h). The limit in bytes is the
// flag's, else KILN_MEMORY_LIMIT's, else 0 (none).
void addMemoryLimitOption(CLI::App* cmd, std::string& limit);
int64_t memoryLimitOf(const std::string& flag);

// Each adds its subcommand to `app`; the returned action runs it (returns the exit code).
std::function<int()> addBenchCommand(CLI::App& app);
std::function<int()> addCompileCommand(CLI::App& app);
std::function<int()> addDevicesCommand(CLI::App& app);
std::function<int()> addFmtCommand(CLI::App& app);
std::function<int()> addFuzzCommand(CLI::App& app);
std::function<int()> addGradCommand(CLI::App& app);
std::function<int()> addPluginCheckCommand(CLI::App& app);
std::function<int()> addJvpCommand(CLI::App& app);
std::function<int()> addVjpCommand(CLI::App& app);
std::function<int()> addVmapCommand(CLI::App& app);
std::function<int()> addRunCommand(CLI::App& app);
std::function<int()> addTestCommand(CLI::App& app);

}  // namespace kiln::tool
