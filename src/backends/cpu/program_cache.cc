// compileSource (program_cache.h).
#include "backends/cpu/program_cache.h"

#include <optional>

#include "support/disk_cache.h"
#include "backends/cpu/jit.h"
#include "backends/cpu/threads.h"
#include "passes/memory_limit.h"
#include "passes/pass_manager.h"
#include "stablehlo/parser.h"

namespace kiln::cpu {

std::string programKey(const SourceRef& source, const SourceCompile& how) {
  return "kiln program\n" + Jit::hostKey() + "threads " + std::to_string(threadCount()) + "\nprepare " +
         how.prepareKey + "\n" + std::string(source->text());
}

namespace {

// Whether every kernel runs optimized code (what the cache keeps), with nothing left
// to compile in the background.
bool allOptimized(const NativeKernels& kernels) {
  if (kernels.background) return false;
  return kernels.tier == CompileTier::Optimized || kernels.cachedModules == kernels.threads;
}

}  // namespace

CompiledSource compileSource(const SourceRef& source, const SourceCompile& how) {
  std::optional<DiskCache> cache;
  if (how.cacheWholeProgram && !how.options.cacheDir.empty() && how.options.dumpDir.empty())
    cache.emplace(how.options.cacheDir);
  const std::string key = cache ? programKey(source, how) : "";
  if (cache) {
    if (std::optional<std::string> bytes = cache->load(key)) {
      std::unique_ptr<Executable> cached;
      try {
        cached = Executable::deserialize(*bytes, source);
      } catch (const Error&) {
        // Not an entry this build can use: compiled again below, and replaced.
      }
      if (cached) {
        passes::checkMemoryLimit(cached->module(), how.options.memoryLimit);
        return {std::move(cached), true};
      }
    }
  }
  std::vector<std::unique_ptr<Module>> modules = stablehlo::parseFile(source);
  if (modules.size() != 1)
    throw Error(ErrorKind::Unsupported, "unsupported: " + source->name() + " has " + std::to_string(modules.size()) +
                                            " parts ('// -----'); only one module compiles at a time");
  if (how.prepare) how.prepare(*modules[0]);
  passes::PassContext context;
  context.options.dumpDir = how.options.dumpDir;
  const passes::PipelineResult result = passes::runPipeline(*modules[0], cpuPipeline(), context);
  passes::checkMemoryLimit(*modules[0], how.options.memoryLimit);  // before LLVM spends its time
  CompiledSource out{std::make_unique<Executable>(std::move(modules[0]), how.options), false,
                     passes::pipelineReport(result, context)};
  if (cache && allOptimized(out.executable->native())) cache->store(key, out.executable->serialize());
  return out;
}

}  // namespace kiln::cpu
