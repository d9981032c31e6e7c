// A module compiled for the CPU: fusions and elementwise, index-map, reduce, gather,
// scatter and convolution ops become LLVM kernels (native_kernels.h); f32/f64
// dot_general and the convolutions the cost model picks run on OpenBLAS (blas_dot.h,
// blas_convolution.h), and JAX's LAPACK custom calls on the kernels the interpreter
// shares (kernels/lapack/). A function whose ops all run natively runs as a step program
// over one arena (step_program.h); the others run through the interpreter, which hands
// each op with native code back to this executable (control flow, and the ops the
// emitter declined, stay with the interpreter), and the statistics say how much ran
// natively.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "backends/cpu/native_kernels.h"
#include "backends/cpu/result_pool.h"
#include "backends/cpu/step_program.h"
#include "interp/interpreter.h"

namespace kiln::cpu {

// The passes a module goes through before it is compiled for the CPU: the optimizer's
// pipeline without constant folding (so kernels, not the folder, compute constant
// programs) and with complex sums split into sums of their parts, the scheduling and
// buffer passes (which this executable does not use yet).
std::vector<std::string> cpuPipeline();

class Executable : public interp::NativeOps {
 public:
  // Compiles the kernels of `module`, which has gone through cpuPipeline() and must
  // outlive the executable.
  explicit Executable(const Module& module, const CompileOptions& options = {});
  // The same, owning the module.
  Executable(std::unique_ptr<Module> module, const CompileOptions& options);

  // The executable as bytes that deserialize() turns back into one without compiling
  // (executable_serial.cc): the optimized module as text with its ops' source positions,
  // the machine code, and each kernel's symbols and shape of work. The code is for this
  // host's CPU and this build of kiln. A tiered compile's optimized code is waited for.
  std::string serialize() const;
  // An executable from serialize()'s bytes, owning its module; `source`, when given, is
  // the text the module was first parsed from, which error messages quote. Throws
  // kiln::Error: Io for bytes that are damaged, truncated or no serialized executable,
  // Unsupported for one serialized by another build of kiln or for another CPU.
  static std::unique_ptr<Executable> deserialize(std::string_view bytes, SourceRef source = nullptr);

  // Runs `fn` on `args`; `options` as for the interpreter (its `native` is set here).
  // With a profile, each step of a step program is a slice in it (a function that runs
  // through the interpreter is not profiled). `donated` (by argument index; null: none):
  // the arguments the caller gives up, whose storage a step program may write results
  // into (StepProgram::run).
  interp::HostValues call(const Function& fn, const interp::HostValues& args, interp::InterpOptions options = {},
                          Profile* profile = nullptr, const std::vector<bool>* donated = nullptr) const;

  bool run(const Op& op, const interp::HostValues& operands, interp::HostValues& results) const override;

  const Module& module() const { return module_; }
  // The kernels and the ops left to the interpreter (for reports).
  const NativeKernels& native() const { return native_; }
  // What `kiln compile --backend cpu --report` prints: each kernel with its op and line,
  // then the interpreter fallbacks with theirs and the reason.
  std::string report() const;
  size_t numKernels() const { return native_.kernels.size(); }
  size_t numBlasOps() const { return blas_.size(); }
  // One line per function that runs through the interpreter: the op that sends it there,
  // where that op is in the source (and the user's line from its location), and why
  // ("@main runs on the interpreter: stablehlo.fft at model.mlir:3:8 has no native code:
  // unsupported: ..."). kiln run and kiln bench print them: no op is slow unnoticed.
  std::vector<std::string> fallbacks() const;
  size_t numInterpretedFunctions() const { return interpreted_.size(); }
  // Why each op left to the interpreter was left there, with how many ops had each reason.
  std::map<std::string, size_t> declinedReasons() const;
  double compileSeconds() const { return native_.seconds; }
  // A tiered compile (CompileTier::Tiered): blocks until the optimized code runs and
  // returns the seconds its background compile took; 0 at once for the other tiers.
  double waitForOptimizedCode() const { return cpu::waitForOptimizedCode(native_); }
  // Kernel executions so far (all threads).
  uint64_t nativeRuns() const { return runs_.load(std::memory_order_relaxed); }
  // Results written into donated arguments so far (all functions, all threads).
  uint64_t resultsInDonatedBuffers() const;

 private:
  Executable(std::unique_ptr<Module> module, const SavedKernels& saved);
  // Which ops run on LAPACK, on BLAS, or as kernels (the requests, in program order).
  std::vector<KernelRequest> classify();
  // The step programs, once the kernels are there.
  void buildPrograms();

  std::unique_ptr<Module> owned_;  // a deserialized executable's module
  const Module& module_;
  std::vector<KernelRequest> requests_;
  NativeKernels native_;
  std::unordered_set<const Op*> blas_;
  // dot_epilogue fusions: the dot each one runs on BLAS before its kernel.
  std::unordered_map<const Op*, const Op*> epilogueDots_;
  // The LAPACK custom calls, checked when the module is compiled.
  std::unordered_map<const Op*, kernels::LapackCall> lapack_;
  mutable std::atomic<uint64_t> runs_{0};
  ResultPool results_;
  // The functions that run as step programs, and why the others do not.
  std::unordered_map<const Function*, std::unique_ptr<StepProgram>> programs_;
  std::map<std::string, NoStepProgram> interpreted_;  // function name -> why
};

}  // namespace kiln::cpu
