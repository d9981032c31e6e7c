// The in-process compile cache: a parsed module compiles for the CPU (cpu pipeline, then
// its executable) once per fingerprint (ir/fingerprint.h: the program's structure, not
// its names or source locations) and compile options; asking again for the same program
// returns the same compiled program, at once. Safe to use from several threads: the
// first caller of a key compiles, later ones wait for it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "backends/cpu/executable.h"
#include "ir/fingerprint.h"

namespace kiln::cpu {

// A module after the cpu pipeline and its executable (which refers into it).
struct CompiledProgram {
  std::unique_ptr<Module> module;
  std::unique_ptr<Executable> executable;
};

class CompileCache {
 public:
  // The compiled program of `module` (as parsed, before the cpu pipeline) with `options`;
  // `hit` (when given) says whether it was compiled before. Errors of the passes or of
  // compilation propagate, and nothing is kept for that key.
  std::shared_ptr<const CompiledProgram> get(std::unique_ptr<Module> module, const CompileOptions& options = {},
                                             bool* hit = nullptr);
  size_t size() const;
  void clear();

  // The cache of this process.
  static CompileCache& process();

 private:
  struct Entry {
    std::mutex compiling;  // held by the first caller while it compiles
    std::shared_ptr<const CompiledProgram> program;
  };
  using Key = std::pair<std::string, std::string>;  // fingerprint, options
  mutable std::mutex mutex_;
  std::map<Key, std::shared_ptr<Entry>> entries_;
};

}  // namespace kiln::cpu
