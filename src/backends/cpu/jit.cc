// The JIT session (jit.h): LLJIT with the host's target machine and the process's own
// symbols (libm for the math functions kernels call), and the new pass manager's O2.
#include "backends/cpu/jit.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <chrono>
#include <cstdlib>
#include <mutex>

#include "backends/cpu/runtime_kernels.h"
#include "support/atomic_file.h"
#include "support/build_id.h"
#include "support/error.h"

namespace kiln::cpu {

struct Jit::State {
  explicit State(llvm::orc::JITTargetMachineBuilder h) : host(std::move(h)) {}
  llvm::orc::JITTargetMachineBuilder host;
  std::unique_ptr<llvm::TargetMachine> machine;  // for data layouts and triples only
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::mutex mutex;  // one load at a time into the JIT
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
    // Loop strength reduction took half of all machine-code time on the kernels' vector
    // loops (W6: 192 of 259 ms) and changed no run time by more than noise. Machine
    // LICM hoists every constant of a math function's polynomials out of a loop nest
    // (a row loop around a vector loop over whole rows): more than the 32 vector
    // registers hold, so the register allocator rotated them through each other, 27
    // register moves per 8 elements of GELU (1.2x its time); left in the loop they are
    // loads from the constant pool. Users may pass LLVM options of their own in
    // KILN_LLVM_FLAGS.
    const char* argv[] = {"kiln", "-disable-lsr", "-disable-machine-licm"};
    llvm::cl::ParseCommandLineOptions(3, argv, "", nullptr, "KILN_LLVM_FLAGS");
  });
}

// The kernels' optimization pipeline: the few passes of LLVM's O2 that kiln's kernels
// need, in O2's order. Kernels are loops over arrays of scalar code, written with
// inline math functions: they need those functions inlined, their allocas promoted (the
// reduction lanes too, which loops update as whole vectors: hence SROA again after the
// loop passes), loop invariants hoisted, loops rotated into the vectorizer's shape and
// vectorized, then the straight-line code left over (lane trees) vectorized and the
// result cleaned up. O2 also ran interprocedural passes, GVN, jump threading, loop idiom
// recognition and others, on kernels that call little, keep no redundant loads that
// early CSE and LICM leave, and have nothing to unroll. On the JAX programs of
// bench/jax_vs_xla.py this pipeline takes 20-45% less time than O2 did (BERT-base's
// optimization 89 -> 45 ms, the MLP training step's 118 -> 77 ms) and their run times
// stayed within noise. InstCombine's fixpoint check is off: a debugging aid that aborts.
constexpr const char* kKernelPipeline =
    "cgscc(inline),"
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,sroa,simplifycfg,"
    "loop-mssa(licm),loop(loop-rotate),loop-mssa(licm),loop(indvars),sroa,"
    "loop-vectorize,instcombine<no-verify-fixpoint>,simplifycfg,"
    "slp-vectorizer,vector-combine,instcombine<no-verify-fixpoint>,simplifycfg)";

// Runs kKernelPipeline (or the pipeline KILN_LLVM_PASSES names, for experiments) for the
// session's target machine. The library info must be registered before the default
// analyses, or they win.
void optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  llvm::TargetLibraryInfoImpl library(llvm::Triple(module.getTargetTriple()));
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  const char* custom = std::getenv("KILN_LLVM_PASSES");
  const std::string passes = custom && *custom ? custom : kKernelPipeline;
  llvm::ModulePassManager pipeline;
  if (llvm::Error e = builder.parsePassPipeline(pipeline, passes)) {
    const bool user = custom && *custom;
    throw Error(user ? ErrorKind::Usage : ErrorKind::Internal,
                std::string(user ? "KILN_LLVM_PASSES" : "the kernel pipeline") + " '" + passes +
                    "': " + llvm::toString(std::move(e)));
  }
  pipeline.run(module, mam);
}

// Writes `module` as text to dir/name (IR), or its machine code as assembly (whole, or
// not at all: support/atomic_file.h).
void dump(const llvm::Module& module, llvm::TargetMachine& machine, const std::string& dir, const std::string& name,
          bool assembly) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream out(text);
  if (!assembly) {
    module.print(out, nullptr);
  } else {
    // Code generation changes the IR it runs on: it runs on a copy.
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
    llvm::legacy::PassManager codegen;
    if (machine.addPassesToEmitFile(codegen, out, nullptr, llvm::CodeGenFileType::AssemblyFile))
      throw Error(ErrorKind::Internal, "LLVM cannot emit assembly for this target");
    codegen.run(*copy);
  }
  writeFileAtomically(dir + "/" + name, std::string_view(text.data(), text.size()));
}

}  // namespace

Jit::Jit() {
  initializeTarget();
  auto host = orThrow(llvm::orc::JITTargetMachineBuilder::detectHost(), "LLVM cannot target this host");
  host.setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  // Code as in a shared library: the small code model addresses the constant pool
  // relative to the instruction pointer, where the JIT's default large model loaded
  // each constant's 64-bit address into a register first (51 such loads in W2's
  // kernel, and spills of what they pushed out). JITLink keeps an object's sections
  // together; anything outside it is reached through the GOT and stubs (PIC).
  host.setCodeModel(llvm::CodeModel::Small);
  host.setRelocationModel(llvm::Reloc::PIC_);
  state_ = std::make_unique<State>(host);
  state_->machine = orThrow(host.createTargetMachine(), "LLVM target machine");
  state_->jit = orThrow(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(host)).create(), "LLJIT");
  char prefix = state_->jit->getDataLayout().getGlobalPrefix();
  state_->jit->getMainJITDylib().addGenerator(
      orThrow(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix), "process symbols"));
  // The runtime functions kernels call, by name (their addresses change from process to
  // process, and the machine code is kept across processes).
  llvm::orc::SymbolMap runtime;
  for (const RuntimeFunction& f : runtimeFunctions())
    runtime[state_->jit->mangleAndIntern(f.name)] = {llvm::orc::ExecutorAddr::fromPtr(f.address),
                                                     llvm::JITSymbolFlags::Exported};
  orThrow(state_->jit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtime))), "runtime functions");
}

Jit::~Jit() = default;

void Jit::prepare(llvm::Module& module) const {
  module.setDataLayout(state_->machine->createDataLayout());
  module.setTargetTriple(state_->machine->getTargetTriple().str());
}

Jit::Object Jit::compile(llvm::Module& module, const std::string& dumpDir, bool fast) const {
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(module, &os)) throw Error(ErrorKind::Internal, "kernel IR does not verify: " + os.str());
  // Target machines are not shared between threads: each module gets its own. The fast
  // tier's generates code at LLVM's O0, which selects instructions with FastISel.
  llvm::orc::JITTargetMachineBuilder host = state_->host;
  if (fast) host.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
  std::unique_ptr<llvm::TargetMachine> machine = orThrow(host.createTargetMachine(), "LLVM target machine");
  if (!dumpDir.empty()) dump(module, *machine, dumpDir, "cpu_kernels.ll", false);
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  Object object;
  auto start = std::chrono::steady_clock::now();
  if (!fast) optimize(module, *machine);
  object.optimizeSeconds = since(start);
  if (!dumpDir.empty()) {
    dump(module, *machine, dumpDir, "cpu_kernels.opt.ll", false);
    dump(module, *machine, dumpDir, "cpu_kernels.s", true);
  }
  start = std::chrono::steady_clock::now();
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream out(bytes);
  llvm::legacy::PassManager codegen;
  llvm::MCContext* mc = nullptr;
  if (machine->addPassesToEmitMC(codegen, mc, out)) throw Error(ErrorKind::Internal, "LLVM cannot emit machine code");
  codegen.run(module);
  object.bytes = std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(bytes), module.getModuleIdentifier(),
                                                                 /*RequiresNullTerminator=*/false);
  object.codegenSeconds = since(start);
  return object;
}

// Any address of this binary's own: which build it is (build_id.h).
constexpr char kBuildAnchor = 0;

std::string Jit::hostKey() {
  static const std::string key = [] {
    std::string key;
    llvm::raw_string_ostream out(key);
    llvm::orc::JITTargetMachineBuilder host = orThrow(llvm::orc::JITTargetMachineBuilder::detectHost(), "the host CPU");
    // The build of the binary this backend is linked into stands for the code it
    // emits and the pipeline it runs: a rebuild that changes any of it never reuses
    // code an older build made (keying by this file's own build time did, after a
    // change to the emitter alone).
    out << "kiln build " << buildIdOf(&kBuildAnchor) << "\nllvm " << LLVM_VERSION_STRING << "\ntarget "
        << host.getTargetTriple().str() << " " << host.getCPU() << " " << host.getFeatures().getString()
        << "\nflags ";
    if (const char* flags = std::getenv("KILN_LLVM_FLAGS")) out << flags;
    out << "\npasses ";
    if (const char* passes = std::getenv("KILN_LLVM_PASSES")) out << passes;
    out << "\n";
    return key;
  }();
  return key;
}

std::string Jit::cacheKey(const llvm::Module& module) const {
  std::string key = hostKey();
  llvm::raw_string_ostream out(key);
  module.print(out, nullptr);
  return key;
}

Jit::Object Jit::objectOf(std::string_view bytes) {
  Object o;
  o.bytes = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(bytes.data(), bytes.size()), "kiln_cached_kernels");
  return o;
}

std::vector<void*> Jit::load(std::vector<Object> objects, const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  for (Object& o : objects) orThrow(state_->jit->addObjectFile(std::move(o.bytes)), "loading kernels into the JIT");
  std::vector<void*> addresses;
  for (const std::string& name : names)
    addresses.push_back(orThrow(state_->jit->lookup(name), "linking " + name).toPtr<void*>());
  return addresses;
}

}  // namespace kiln::cpu
