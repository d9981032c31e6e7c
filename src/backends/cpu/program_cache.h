// Compiling a program from its text, with a warm start: the whole executable
// (Executable::serialize: the optimized module, its machine code and its plan) is kept
// in the disk cache (disk_cache.h) under a key of the text itself, the preparation the
// caller asked for, the thread count the kernels were shaped for and the host key
// (jit.h), so a second process with the same program neither runs the pass pipeline
// nor emits or compiles a kernel: it checks the entry and parses the optimized module.
// An entry that is damaged, or from another build or CPU, is a miss and is replaced.
// Only optimized code is kept (a fast or tiered compile reads entries, and writes one
// when all its code came optimized from the cache).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "backends/cpu/executable.h"

namespace kiln::cpu {

struct SourceCompile {
  CompileOptions options;
  // Runs on the parsed module before the pipeline (filling elided constants, say);
  // `prepareKey` says what it does, for the cache key ("" when there is no `prepare`).
  std::function<void(Module&)> prepare;
  std::string prepareKey;
  // Whether the whole executable is kept in (and taken from) options.cacheDir too, or
  // only its kernels' machine code (a host that keeps executables itself: the plugin).
  bool cacheWholeProgram = true;
};

struct CompiledSource {
  std::unique_ptr<Executable> executable;  // owns its module
  bool warm = false;                       // from the disk cache
  // What the pipeline did (passes::pipelineReport); empty when it came from the cache.
  std::string pipelineReport;
};

// The disk cache key of `source` compiled `how` (what the entry is stored under).
std::string programKey(const SourceRef& source, const SourceCompile& how);

// Parses `source` (one module: a file split by `// -----` is an Unsupported error),
// prepares it, runs cpuPipeline() and compiles it; or loads it from the disk cache
// (options.cacheDir; never with a dump dir). With a dump dir the pipeline writes its
// modules there too. Parse and verify errors are as parsing's.
CompiledSource compileSource(const SourceRef& source, const SourceCompile& how);

}  // namespace kiln::cpu
