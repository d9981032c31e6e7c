// The JIT session (jit.h): LLJIT with the host's target machine and the process's own
// symbols (libm for the math functions kernels call), and the new pass manager's O2.
#include "backends/cpu/jit.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <chrono>
#include <mutex>

#include "support/error.h"

namespace kiln::cpu {

struct Jit::State {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::mutex mutex;  // one module at a time through the optimizer and the JIT
};

namespace {

template <class T>
T orThrow(llvm::Expected<T> value, const std::string& what) {
  if (!value) throw Error(ErrorKind::Internal, what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

void orThrow(llvm::Error error, const std::string& what) {
  if (error) throw Error(ErrorKind::Internal, what + ": " + llvm::toString(std::move(error)));
}

void initializeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

// LLVM's default O2 pipeline, vectorizers on, for the session's target machine. The
// library info must be registered before the default analyses, or they win.
void optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopInterleaving = true;
  tuning.LoopUnrolling = true;
  llvm::PassBuilder builder(&machine, tuning);
  llvm::TargetLibraryInfoImpl library(llvm::Triple(module.getTargetTriple()));
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(module, mam);
}

// Writes `module` as text to dir/name (IR), or its machine code as assembly.
void dump(const llvm::Module& module, llvm::TargetMachine& machine, const std::string& dir, const std::string& name,
          bool assembly) {
  std::string path = dir + "/" + name;
  std::error_code error;
  llvm::raw_fd_ostream out(path, error, llvm::sys::fs::OF_Text);
  if (error) throw Error(ErrorKind::Io, "cannot write '" + path + "': " + error.message());
  if (!assembly) {
    module.print(out, nullptr);
    return;
  }
  // Code generation changes the IR it runs on: it runs on a copy.
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, out, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw Error(ErrorKind::Internal, "LLVM cannot emit assembly for this target");
  codegen.run(*copy);
}

}  // namespace

Jit::Jit() : state_(std::make_unique<State>()) {
  initializeTarget();
  auto host = orThrow(llvm::orc::JITTargetMachineBuilder::detectHost(), "LLVM cannot target this host");
  host.setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  state_->machine = orThrow(host.createTargetMachine(), "LLVM target machine");
  state_->jit = orThrow(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(host)).create(), "LLJIT");
  char prefix = state_->jit->getDataLayout().getGlobalPrefix();
  state_->jit->getMainJITDylib().addGenerator(
      orThrow(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix), "process symbols"));
}

Jit::~Jit() = default;

void Jit::prepare(llvm::Module& module) const {
  module.setDataLayout(state_->machine->createDataLayout());
  module.setTargetTriple(state_->machine->getTargetTriple().str());
}

std::vector<void*> Jit::add(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                            const std::vector<std::string>& names, const std::string& dumpDir,
                            double& optimizeSeconds, double& codegenSeconds) {
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os)) throw Error(ErrorKind::Internal, "kernel IR does not verify: " + os.str());
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!dumpDir.empty()) dump(*module, *state_->machine, dumpDir, "cpu_kernels.ll", false);
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  auto start = std::chrono::steady_clock::now();
  optimize(*module, *state_->machine);
  optimizeSeconds = since(start);
  if (!dumpDir.empty()) {
    dump(*module, *state_->machine, dumpDir, "cpu_kernels.opt.ll", false);
    dump(*module, *state_->machine, dumpDir, "cpu_kernels.s", true);
  }
  // Machine code is generated when the first symbol is looked up.
  start = std::chrono::steady_clock::now();
  orThrow(state_->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))),
          "adding kernels to the JIT");
  std::vector<void*> addresses;
  for (const std::string& name : names)
    addresses.push_back(orThrow(state_->jit->lookup(name), "compiling " + name).toPtr<void*>());
  codegenSeconds = since(start);
  return addresses;
}

}  // namespace kiln::cpu
