// The JIT session: LLVM ORC's LLJIT for the host CPU, and the kernels' pipeline of O2's
// passes in LLVM's new pass manager (what ../shared/notes/orcjit-probe.md measured). Modules are optimized and
// compiled to object code apart (on several threads), then loaded into the session
// together. Included only by the files that build LLVM IR.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/Support/MemoryBuffer.h>

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class LLJIT;
}
}  // namespace llvm

namespace kiln::cpu {

class Jit {
 public:
  // A session for the host CPU. Throws kiln::Error (Internal) when LLVM cannot target it.
  Jit();
  ~Jit();
  Jit(const Jit&) = delete;
  Jit& operator=(const Jit&) = delete;

  // Machine code for one module, not yet loaded.
  struct Object {
    std::unique_ptr<llvm::MemoryBuffer> bytes;
    double optimizeSeconds = 0;  // LLVM's passes
    double codegenSeconds = 0;   // machine code generation
  };

  // Sets the host's data layout and triple on a module about to be filled.
  void prepare(llvm::Module& module) const;
  // Verifies and optimizes `module` and generates its machine code, with a target machine
  // of its own: modules in contexts of their own compile on several threads at once.
  // With a `dumpDir`, writes there the IR before and after optimization
  // (cpu_kernels.ll, cpu_kernels.opt.ll) and the assembly (cpu_kernels.s). `fast`: no
  // IR optimization, and machine code at LLVM's O0 (the fast tier).
  Object compile(llvm::Module& module, const std::string& dumpDir, bool fast = false) const;
  // Everything that decides `module`'s machine code, as one string (the disk cache's
  // key, disk_cache.h): its IR, the target (triple, CPU, features), LLVM's version and
  // command-line options, and this build of kiln's compile pipeline.
  std::string cacheKey(const llvm::Module& module) const;
  // The part of every key that is not the IR: kiln's build, LLVM's version and options,
  // the host CPU and its features. Machine code made under another key must not run here.
  static std::string hostKey();
  // An object of machine code the disk cache kept.
  static Object objectOf(std::string_view bytes);
  // Loads compiled objects into the session (one caller at a time) and returns the
  // address of each of `names`, in order.
  std::vector<void*> load(std::vector<Object> objects, const std::vector<std::string>& names);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kiln::cpu
