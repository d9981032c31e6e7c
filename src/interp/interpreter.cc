// The interpreter's evaluation loop: call frames, regions, op dispatch to kernels.
#include "interp/interpreter.h"

#include <cstring>
#include <unordered_map>

#include "interp/kernels.h"
#include "ir/builder.h"
#include "ir/elided_constants.h"
#include "support/error.h"

namespace kiln::interp {

namespace {

const KernelTable& kernelTable() {
  static const KernelTable kTable = [] {
    KernelTable t;
    addArithmeticKernels(t);
    addMathKernels(t);
    addConversionKernels(t);
    addCompareSelectKernels(t);
    addControlFlowKernels(t);
    addCheckKernels(t);
    addHarnessKernels(t);
    addMiscKernels(t);
    addMovementKernels(t);
    addGatherScatterKernels(t);
    addSortKernels(t);
    addReductionKernels(t);
    addLinalgKernels(t);
    addCollectiveKernels(t);
    addCommunicationKernels(t);
    addRandomKernels(t);
    addChloKernels(t);
    addCustomCallKernels(t);
    return t;
  }();
  return kTable;
}

constexpr int kMaxCallDepth = 500;

}  // namespace

bool hasKernel(OpCode code) { return kernelTable().entries[code].kernel != nullptr; }
const char* unsupportedReason(OpCode code) { return kernelTable().entries[code].unsupported; }

namespace {

// One function activation: the values its ops have computed so far.
class Frame : public EvalContext {
 public:
  Frame(const Interpreter& interp, ProcessContext* process, int depth)
      : interp_(interp), process_(process), depth_(depth) {}

  HostValues runFunction(const Function& fn, const HostValues& args) {
    return runRegion(fn.body(), args);
  }

  HostValues runRegion(const Region& region, const HostValues& args) override {
    if (args.size() != region.numArguments())
      throw Error(ErrorKind::Internal, "region called with " + std::to_string(args.size()) +
                                           " arguments, expects " + std::to_string(region.numArguments()));
    for (size_t i = 0; i < args.size(); ++i) env_[region.argument(i)] = args[i];
    const auto& deadAfter = interp_.deadAfter(region);
    HostValues operands;
    size_t position = 0;
    for (const auto& opPtr : region.ops()) {
      const Op& op = *opPtr;
      operands.clear();
      for (Value* v : op.operands()) operands.push_back(lookup(v, op));
      if (op.info().isTerminator()) return operands;
      if (++opsSinceCheck_ >= 256) {
        opsSinceCheck_ = 0;
        checkTime();
      }
      HostValues results;
      const NativeOps* native = interp_.options().native;
      if (!native || !native->run(op, operands, results)) results = runOp(op, operands);
      for (size_t i = 0; i < results.size(); ++i) env_[op.result(i)] = std::move(results[i]);
      operands.clear();  // drop our references too, so freed values really go
      for (const Value* v : deadAfter[position++]) env_.erase(v);
    }
    throw Error(ErrorKind::Internal, "region without a terminator");
  }

  // `op` by its interpreter kernel (or its decomposition).
  HostValues runOp(const Op& op, const HostValues& operands) {
    HostValues results;
    try {
      const KernelEntry& entry = kernelTable().entries[op.code()];
      const Region* decomposition = entry.kernel ? nullptr : interp_.decompositionOf(op);
      if (!entry.kernel && !decomposition) unsupportedOp(op, entry.unsupported ? entry.unsupported : "no interpreter kernel");
      results = decomposition ? runRegion(*decomposition, operands) : entry.kernel(op, operands, *this);
    } catch (Error& e) {
      if (!e.pos().known() && op.pos.known()) e.at(interp_.module().source, op.pos);
      throw;
    }
    if (results.size() != op.numResults())
      throw Error(ErrorKind::Internal, std::string(op.name()) + " kernel returned " + std::to_string(results.size()) +
                                           " values");
    return results;
  }

  HostValues callFunction(const std::string& name, const HostValues& args) override {
    return callFunctionIn(process_, name, args);
  }

  HostValues callFunctionIn(ProcessContext* process, const std::string& name,
                            const HostValues& args) override {
    const Function* fn = interp_.module().lookup(name);
    if (!fn) throw Error(ErrorKind::Runtime, "call of undefined function @" + name);
    if (depth_ + 1 > kMaxCallDepth)
      throw Error(ErrorKind::Runtime, "calls nest deeper than " + std::to_string(kMaxCallDepth) + " (recursion?)");
    Frame callee(interp_, process, depth_ + 1);
    return callee.runFunction(*fn, args);
  }

  void checkTime() override { checkDeadline(interp_.options()); }

  const Interpreter& interpreter() const override { return interp_; }
  ProcessContext* process() override { return process_; }

 private:
  const HostValue& lookup(const Value* v, const Op& op) {
    auto it = env_.find(v);
    if (it == env_.end()) throw Error(ErrorKind::Internal, std::string(op.name()) + " uses a value with no computed value");
    return it->second;
  }

  const Interpreter& interp_;
  ProcessContext* process_;
  int depth_;
  int opsSinceCheck_ = 0;
  std::unordered_map<const Value*, HostValue> env_;
};

}  // namespace

namespace {

// Last uses of a region's own values (its arguments and its ops' results): a use inside
// a nested region counts as a use by the op that holds it.
std::vector<std::vector<const Value*>> lastUses(const Region& region) {
  std::unordered_map<const Value*, size_t> last;
  size_t i = 0;
  for (const Value* a : region.arguments()) last[a] = 0;
  for (const auto& op : region.ops()) {
    for (const Value* r : op->results()) last[r] = i;  // unused results die at once
    auto use = [&](const Value* v) {
      if (auto it = last.find(v); it != last.end()) it->second = i;
    };
    for (const Value* v : op->operands()) use(v);
    for (size_t r = 0; r < op->numRegions(); ++r)
      walk(op->region(r), [&](Op& inner) {
        for (const Value* v : inner.operands()) use(v);
      });
    ++i;
  }
  std::vector<std::vector<const Value*>> dead(region.size());
  for (const auto& [v, at] : last)
    if (at < dead.size()) dead[at].push_back(v);
  return dead;
}

void planRegions(const Region& region, std::unordered_map<const Region*, std::vector<std::vector<const Value*>>>& plans) {
  plans[&region] = lastUses(region);
  for (const auto& op : region.ops())
    for (size_t r = 0; r < op->numRegions(); ++r) planRegions(op->region(r), plans);
}

}  // namespace

Interpreter::Interpreter(const Module& module, InterpOptions options)
    : module_(module), options_(std::move(options)) {
  rejectElidedConstants(module);  // zeros standing in for left-out data are no answer
  kernelTable();  // build the table before any thread needs it
  for (const auto& fn : module.functions()) {
    planDecompositions(fn->body());
    planRegions(fn->body(), deadAfter_);
  }
}

void Interpreter::planDecompositions(const Region& region) {
  for (const auto& op : region.ops()) {
    for (size_t r = 0; r < op->numRegions(); ++r) planDecompositions(op->region(r));
    const OpInfo& info = op->info();
    if (hasKernel(op->code()) || !info.decompose) continue;
    // A copy of the op over fresh arguments, so the module's use lists stay untouched;
    // the decomposition is built before it, then the copy goes.
    auto scratch = std::make_unique<Region>();
    ValueMap map;
    for (const Value* v : op->operands()) map[v] = scratch->addArgument(v->type());
    Op* copy = scratch->push_back(op->clone(map));
    Builder b = Builder::before(*copy, &module_);
    std::vector<Value*> results = info.decompose(b, *copy);
    scratch->erase(copy);  // never used: its results were not read
    if (results.empty()) continue;  // the decomposition declines: unsupported at run time
    Builder end(*scratch, &module_);
    end.ret(results);
    planRegions(*scratch, deadAfter_);
    decompositions_.emplace(op.get(), std::move(scratch));
  }
}

const Region* Interpreter::decompositionOf(const Op& op) const {
  auto it = decompositions_.find(&op);
  return it == decompositions_.end() ? nullptr : it->second.get();
}

const std::vector<std::vector<const Value*>>& Interpreter::deadAfter(const Region& region) const {
  auto it = deadAfter_.find(&region);
  if (it == deadAfter_.end()) throw Error(ErrorKind::Internal, "region of another module");
  return it->second;
}

void checkDeadline(const InterpOptions& o) {
  if (o.cancel && o.cancel->load(std::memory_order_relaxed)) throw Error(ErrorKind::Runtime, "cancelled");
  if (o.deadline && std::chrono::steady_clock::now() > *o.deadline)
    throw Error(ErrorKind::Runtime, "time limit exceeded");
}

void checkArguments(const Function& fn, const HostValues& args) {
  if (args.size() != fn.numParams())
    throw Error(ErrorKind::Type, "@" + fn.name() + " takes " + std::to_string(fn.numParams()) +
                                     " arguments, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    Type expected = fn.param(i)->type();
    Type got = args[i].type();
    if (got != expected)
      throw Error(ErrorKind::Type, "argument " + std::to_string(i) + " of @" + fn.name() + " must be " +
                                       expected.str() + ", got " + got.str());
  }
}

HostValues Interpreter::call(const Function& fn, const HostValues& args) {
  checkArguments(fn, args);
  Frame frame(*this, options_.process, 0);
  return frame.runFunction(fn, args);
}

HostValues Interpreter::runOp(const Op& op, const HostValues& operands) {
  Frame frame(*this, options_.process, 0);
  return frame.runOp(op, operands);
}

HostValues Interpreter::call(std::string_view fnName, const HostValues& args) {
  const Function* fn = module_.lookup(fnName);
  if (!fn) throw Error(ErrorKind::Runtime, "no function @" + std::string(fnName) + " in the module");
  return call(*fn, args);
}

// ---- shared kernel helpers -------------------------------------------------------------------

void unsupportedOp(const Op& op, const std::string& reason) {
  throw Error(ErrorKind::Unsupported, "unsupported: " + std::string(op.name()) + " (" + reason + ")");
}

void runtimeError(const Op& op, const std::string& message) {
  throw Error(ErrorKind::Runtime, std::string(op.name()) + ": " + message);
}

Literal elementAt(const Literal& lit, int64_t linear) {
  size_t width = static_cast<size_t>(storageBytes(lit.dtype()));
  const uint8_t* src = lit.storage() + (lit.isSplat() ? 0 : static_cast<size_t>(linear) * width);
  return Literal::splat(Type::scalar(lit.dtype()), src);
}

void setElement(Literal& lit, int64_t linear, const Literal& scalar) {
  size_t width = static_cast<size_t>(storageBytes(lit.dtype()));
  std::memcpy(lit.mutableStorage() + static_cast<size_t>(linear) * width, scalar.storage(), width);
}

std::vector<int64_t> stridesOf(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

void unravel(int64_t linear, const Shape& shape, std::vector<int64_t>& index) {
  index.assign(shape.size(), 0);
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) continue;
    index[i] = linear % shape[i];
    linear /= shape[i];
  }
}

int64_t ravel(std::span<const int64_t> index, const std::vector<int64_t>& strides) {
  int64_t linear = 0;
  for (size_t i = 0; i < index.size(); ++i) linear += index[i] * strides[i];
  return linear;
}

bool nextIndex(std::vector<int64_t>& index, const Shape& shape) {
  for (size_t i = shape.size(); i-- > 0;) {
    if (++index[i] < shape[i]) return true;
    index[i] = 0;
  }
  return false;
}

}  // namespace kiln::interp
