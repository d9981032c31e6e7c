// The JIT session: LLVM ORC's LLJIT for the host CPU, and the O2 pipeline of LLVM's new
// pass manager (what ../shared/notes/orcjit-probe.md measured). Included only by the
// files that build LLVM IR.
#pragma once

#include <memory>
#include <string>
#include <vector>

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

  // Sets the host's data layout and triple on a module about to be filled.
  void prepare(llvm::Module& module) const;
  // Optimizes `module` (verified first), compiles it, and returns the address of each of
  // `names`, in order. With a `dumpDir`, writes there the IR before and after
  // optimization (cpu_kernels.ll, cpu_kernels.opt.ll) and the assembly (cpu_kernels.s).
  // `optimizeSeconds` and `codegenSeconds` receive the time LLVM's passes and its machine
  // code generation took.
  std::vector<void*> add(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                         const std::vector<std::string>& names, const std::string& dumpDir, double& optimizeSeconds,
                         double& codegenSeconds);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kiln::cpu
