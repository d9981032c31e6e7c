// The compile cache (compile_cache.h).
#include "backends/cpu/compile_cache.h"

#include <vector>

#include "passes/memory_limit.h"
#include "passes/pass_manager.h"

namespace kiln::cpu {

std::shared_ptr<const CompiledProgram> CompileCache::get(std::unique_ptr<Module> module,
                                                         const CompileOptions& options, bool* hit) {
  const Key key{fingerprint(*module).hex(), "dump-dir=" + options.dumpDir};
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Entry>& slot = entries_[key];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::lock_guard<std::mutex> compiling(entry->compiling);
  if (hit) *hit = entry->program != nullptr;
  if (entry->program) {
    passes::checkMemoryLimit(*entry->program->module, options.memoryLimit);  // compiled under another limit
    return entry->program;
  }
  try {
    passes::PassContext context;
    passes::runPipeline(*module, cpuPipeline(), context);
    passes::checkMemoryLimit(*module, options.memoryLimit);
    auto program = std::make_shared<CompiledProgram>();
    program->executable = std::make_unique<Executable>(*module, options);
    program->module = std::move(module);
    entry->program = std::move(program);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.erase(key);
    throw;
  }
  return entry->program;
}

size_t CompileCache::size() const {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [key, entry] : entries_) entries.push_back(entry);
  }
  size_t n = 0;
  for (const auto& entry : entries) {
    std::lock_guard<std::mutex> compiling(entry->compiling);  // (never while holding mutex_)
    n += entry->program != nullptr;
  }
  return n;
}

void CompileCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

CompileCache& CompileCache::process() {
  static CompileCache cache;
  return cache;
}

}  // namespace kiln::cpu
