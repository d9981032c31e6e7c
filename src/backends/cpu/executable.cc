// The CPU executable (executable.h): which ops get kernels, and how a kernel runs over
// the interpreter's values.
#include "backends/cpu/executable.h"

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "backends/cpu/blas_dot.h"
#include "backends/cpu/threads.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "passes/buffer_assignment.h"

namespace kiln::cpu {

std::vector<std::string> cpuPipeline() {
  return {"inline", "lower-chlo", "fixpoint(simplify)", "split-complex-sums", "cse", "dce", "fusion"};
}

namespace {

// The ops offered to the emitter: everything that computes (the emitter declines what it
// has no code for yet, and the reasons say what still runs on the interpreter), except
// control flow, whose regions are searched instead, constants and the test harness's ops.
// Ops inside a fusion are the fusion's business, and those in the regions of other ops
// (reducers, comparators) their op's.
void collect(const Region& region, std::vector<const Op*>& out) {
  for (const auto& op : region.ops()) {
    const OpInfo& info = op->info();
    if (op->is(ops::Fusion)) {
      out.push_back(op.get());
      continue;
    }
    OpCategory c = info.category;
    if (c == OpCategory::ControlFlow)
      for (size_t r = 0; r < op->numRegions(); ++r) collect(op->region(r), out);
    bool skip = c == OpCategory::ControlFlow || c == OpCategory::Constant || c == OpCategory::Check ||
                c == OpCategory::Interpreter;
    // JAX-generated tests call the checkers as custom calls.
    if (op->is(ops::CustomCall) && checkOpOfCustomCall(op->attr("call_target_name").asString())) skip = true;
    if (info.isTerminator() || skip) continue;
    out.push_back(op.get());
  }
}

std::vector<const Op*> kernelOps(const Module& module) {
  std::vector<const Op*> ops;
  for (const auto& fn : module.functions()) collect(fn->body(), ops);
  return ops;
}


// The dot (or convolution) of a dot_epilogue fusion when BLAS can run it on the fusion's
// own operands (its operands are arguments of the fusion's region), else null.
const Op* blasDotOf(const Op& fusion) {
  if (!fusion.is(ops::Fusion) || fusion.attr("kind").asString() != "dot_epilogue") return nullptr;
  for (const auto& op : fusion.region(0).ops()) {
    if (!op->is(ops::DotGeneral) && !op->is(ops::Dot) && !op->is(ops::Convolution)) continue;
    if (blasDeclines(*op)) return nullptr;
    for (const Value* v : op->operands())
      if (!v->isArgument() || v->ownerRegion() != &fusion.region(0)) return nullptr;
    return op.get();
  }
  return nullptr;
}

}  // namespace

Executable::Executable(const Module& module, const CompileOptions& options) : module_(module) {
  requests_ = classify();
  native_ = compileKernels(requests_, options);
  buildPrograms();
}

Executable::Executable(std::unique_ptr<Module> module, const CompileOptions& options)
    : owned_(std::move(module)), module_(*owned_) {
  requests_ = classify();
  native_ = compileKernels(requests_, options);
  buildPrograms();
}

Executable::Executable(std::unique_ptr<Module> module, const SavedKernels& saved)
    : owned_(std::move(module)), module_(*owned_) {
  requests_ = classify();
  native_ = loadKernels(saved, requests_);
  buildPrograms();
}

namespace {

// The kernels that may write a result over an operand they read: those buffer assignment
// writes in place (the step programs assign the same), and those that return a result
// of a parameter's type which they read, since a call that donates the parameter may have
// the result written into its storage (StepProgram::findDonors decides per call; the
// kernel's code must allow it in every call).
std::unordered_set<const Op*> mayWriteInPlace(const Module& module) {
  std::unordered_set<const Op*> inPlace;
  for (const auto& fn : module.functions()) {
    for (const passes::BufferedValue& v : passes::assignBuffers(*fn, passes::Donation::None).values)
      if (v.reusesBufferOf >= 0 && v.value->definingOp()) inPlace.insert(v.value->definingOp());
    const Op* ret = fn->body().terminator();
    if (!ret) continue;
    for (const Value* returned : ret->operands()) {
      const Op* op = returned->definingOp();
      if (!op) continue;
      for (const Value* v : op->operands())
        if (v->isArgument() && v->ownerRegion() == &fn->body() && v->type() == returned->type()) inPlace.insert(op);
    }
  }
  return inPlace;
}

}  // namespace

std::vector<KernelRequest> Executable::classify() {
  const std::unordered_set<const Op*> inPlace = mayWriteInPlace(module_);
  std::vector<KernelRequest> kernels;
  for (const Op* op : kernelOps(module_)) {
    if (op->is(ops::CustomCall) && kernels::isLapackTarget(op->attr("call_target_name").asString())) {
      try {
        lapack_.emplace(op, *kernels::lapackCallOf(*op));
      } catch (Error& e) {
        if (!e.pos().known() && op->pos.known()) e.at(module_.source, op->pos);
        throw;
      }
    } else if (!blasDeclines(*op)) {
      blas_.insert(op);
    } else if (const Op* dot = blasDotOf(*op)) {
      kernels.push_back({op, {dot->result()}, inPlace.count(op) > 0});
    } else {
      kernels.push_back({op, {}, inPlace.count(op) > 0});
    }
  }
  return kernels;
}

void Executable::buildPrograms() {
  // Only the fusions whose kernel compiled run their dot on BLAS.
  for (const KernelRequest& r : requests_)
    if (!r.precomputed.empty() && native_.kernels.count(r.op)) epilogueDots_[r.op] = r.precomputed[0]->definingOp();
  CompiledOps natives{native_, blas_, epilogueDots_, lapack_};
  for (const auto& fn : module_.functions()) {
    NoStepProgram whyNot;
    if (auto program = StepProgram::build(module_, *fn, natives, whyNot)) programs_[fn.get()] = std::move(program);
    else interpreted_[fn->name()] = whyNot;
  }
}

uint64_t Executable::resultsInDonatedBuffers() const {
  uint64_t n = 0;
  for (const auto& [fn, program] : programs_) n += program->resultsInDonatedBuffers();
  return n;
}

interp::HostValues Executable::call(const Function& fn, const interp::HostValues& args, interp::InterpOptions options,
                                    Profile* profile, const std::vector<bool>* donated) const {
  if (auto it = programs_.find(&fn); it != programs_.end())
    return it->second->run(args, runs_, options, profile, donated);
  options.native = this;
  interp::Interpreter interpreter(module_, std::move(options));
  return interpreter.call(fn, args);
}

bool Executable::run(const Op& op, const interp::HostValues& operands, interp::HostValues& results) const {
  // (LAPACK calls in a function that runs through the interpreter are run by its own
  // custom_call kernel: the same code, kernels/lapack/.)
  if (blas_.count(&op)) {
    results = blasRun(op, operands);
    runs_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  auto it = native_.kernels.find(&op);
  if (it == native_.kernels.end()) return false;
  // Kernels read dense buffers: a splat operand is expanded first.
  std::vector<Literal> inputs;
  inputs.reserve(operands.size() + 1);
  std::vector<void*> buffers;
  for (const interp::HostValue& v : operands) inputs.push_back(v.tensor());
  if (auto dot = epilogueDots_.find(&op); dot != epilogueDots_.end()) {
    // The dot first, on BLAS, from the fusion operands its region arguments stand for.
    interp::HostValues dotOperands;
    for (const Value* v : dot->second->operands()) dotOperands.push_back(operands[v->index()]);
    inputs.push_back(blasRun(*dot->second, dotOperands)[0].tensor());
  }
  for (Literal& in : inputs)
    buffers.push_back(const_cast<uint8_t*>(in.denseStorage()));
  results.clear();
  std::vector<Literal> outputs;
  for (size_t i = 0; i < op.numResults(); ++i) {
    outputs.push_back(results_.take(op, i));
    buffers.push_back(outputs.back().mutableStorage());
  }
  // A two-phase kernel's scratch (every byte is written before it is read).
  std::unique_ptr<uint8_t[]> scratch;
  if (it->second.twoPhase()) {
    scratch = std::make_unique_for_overwrite<uint8_t[]>(static_cast<size_t>(it->second.scratchBytes));
    buffers.push_back(scratch.get());
  }
  runKernel(it->second, buffers.data());
  for (size_t i = 0; i < outputs.size(); ++i) {
    results_.keep(op, i, outputs[i]);
    results.push_back(std::move(outputs[i]));
  }
  runs_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

std::string Executable::report() const {
  // In program order: the kernels were compiled in that order; the map is not.
  std::vector<const Op*> compiled;
  for (const Op* op : kernelOps(module_))
    if (native_.kernels.count(op)) compiled.push_back(op);
  auto ms = [](double s) { return std::to_string(static_cast<int>(s * 1000 + 0.5)) + " ms"; };
  std::string out = "cpu: " + std::to_string(compiled.size()) + " LLVM kernels";
  if (native_.sharedKernels > 0)
    out += " (" + std::to_string(native_.sharedKernels) + " the same code as another, compiled once)";
  if (!compiled.empty())  // (nothing to say of a compile that had no kernels)
    out += ", compiled in " + ms(native_.seconds) + " on " + std::to_string(native_.threads) + " thread" +
           (native_.threads == 1 ? "" : "s") + " (IR emission " + ms(native_.emitSeconds) + ", LLVM optimization " +
           ms(native_.optimizeSeconds) + ", machine code " + ms(native_.codegenSeconds) + ", summed over the threads)";
  if (native_.deserialized) out += ", loaded from a serialized executable";
  if (native_.cachedModules > 0)
    out += "; machine code of " + std::to_string(native_.cachedModules) + " of " + std::to_string(native_.threads) +
           " modules from the disk cache";
  if (native_.tier == CompileTier::Fast && !compiled.empty()) out += "; unoptimized (--compile-tier fast)";
  if (native_.background) out += "; unoptimized first, optimized code compiling in the background";
  out += "\n";
  // Which library each dot runs on, and which path each convolution took, and why.
  auto convolutions = [&](const Op& op, bool onBlas) {
    std::string why;
    auto note = [&](const Op& c) {
      if (onBlas && (c.is(ops::DotGeneral) || c.is(ops::Dot))) why += ", GEMM " + dotPath(c);
      if (!c.is(ops::Convolution)) return;
      why += onBlas ? ", convolution " + convolutionPath(c) : ", convolution as a direct loop: " + *blasDeclines(c);
    };
    if (op.is(ops::Fusion)) {
      for (const auto& inner : op.region(0).ops())
        if (!onBlas || inner.get() == epilogueDots_.at(&op)) note(*inner);
    } else {
      note(op);
    }
    return why;
  };
  std::unordered_set<const Op*> inPlace;
  for (const KernelRequest& r : requests_)
    if (r.inPlace) inPlace.insert(r.op);
  for (size_t i = 0; i < compiled.size(); ++i) {
    out += "  kernel " + std::to_string(i) + ": " + describeOp(*compiled[i]);
    if (inPlace.count(compiled[i])) out += ", may write its results over operands it reads";
    if (const Kernel& k = native_.kernels.at(compiled[i]); k.twoPhase())
      out += ", its column reduction in " + std::to_string(k.iterations) + " pieces side by side, then combined";
    if (!epilogueDots_.count(compiled[i])) out += convolutions(*compiled[i], false);
    out += "\n";
  }
  for (const Op* op : kernelOps(module_)) {
    if (blas_.count(op)) out += "  BLAS: " + describeOp(*op) + convolutions(*op, true) + "\n";
    if (epilogueDots_.count(op)) out += "  BLAS, then kernel: " + describeOp(*op) + convolutions(*op, true) + "\n";
    if (auto call = lapack_.find(op); call != lapack_.end())
      out += "  LAPACK: " + describeOp(*op) + " (@" + std::string(call->second.target) + ")\n";
  }
  for (const auto& fn : module_.functions()) {
    if (auto it = programs_.find(fn.get()); it != programs_.end()) {
      out += "@" + fn->name() + ": " + std::to_string(it->second->numSteps()) + " steps over an arena of " +
             std::to_string(it->second->arenaBytes()) + " bytes\n";
      for (const std::string& group : it->second->rowGroups()) out += "  row group: " + group + "\n";
    } else
      out += "@" + fn->name() + ": through the interpreter (" + interpreted_.at(fn->name()).why + ")\n";
  }
  out += "interpreter fallbacks: " + std::to_string(native_.declined.size()) + "\n";
  for (const auto& [op, reason] : native_.declined) out += "  " + describeOp(*op) + ": " + reason + "\n";
  return out;
}

std::vector<std::string> Executable::fallbacks() const {
  std::vector<std::string> lines;
  for (const auto& fn : module_.functions()) {
    auto it = interpreted_.find(fn->name());
    if (it == interpreted_.end()) continue;
    const NoStepProgram& why = it->second;
    std::string line = "@" + fn->name() + " runs on the interpreter: ";
    if (!why.op) {
      lines.push_back(line + why.why);
      continue;
    }
    const Op& op = *why.op;
    line += std::string(op.name());
    if (SourcePos pos = sourceLine(op); pos.known())
      line += " at " + (module_.source ? module_.source->name() : std::string("line")) + ":" + std::to_string(pos.line) +
              ":" + std::to_string(pos.col);
    if (Location user = op.loc.fileLocation(); !user.isUnknown()) line += " (from " + user.str() + ")";
    auto declined = std::find_if(native_.declined.begin(), native_.declined.end(),
                                 [&](const auto& d) { return d.first == &op; });
    line += declined != native_.declined.end() ? " has no native code: " + declined->second
                                               : ": " + why.why;
    lines.push_back(std::move(line));
  }
  return lines;
}

std::map<std::string, size_t> Executable::declinedReasons() const {
  std::map<std::string, size_t> reasons;
  for (const auto& [op, reason] : native_.declined) ++reasons[reason];
  return reasons;
}

}  // namespace kiln::cpu
