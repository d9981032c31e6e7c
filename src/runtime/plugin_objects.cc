// Device memory accounting, buffers' shared state, and what an executable reports.
#include "runtime/plugin_objects.h"

#include <algorithm>

#include "ir/ops/stablehlo.h"
#include "passes/buffer_assignment.h"
#include "passes/cost_analysis.h"

namespace kiln::runtime {

void DeviceMemory::reserve(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (limit_ > 0 && inUse_ + bytes > limit_)
    throw ApiFailure(FailureCode::ResourceExhausted,
                     "out of device memory: a buffer of " + std::to_string(bytes) + " bytes with " +
                         std::to_string(inUse_) + " of the limit of " + std::to_string(limit_) + " bytes in use");
  inUse_ += bytes;
  peak_ = std::max(peak_, inUse_);
  ++buffers_;
}

void DeviceMemory::release(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  inUse_ -= bytes;
  --buffers_;
}

DeviceMemory::Stats DeviceMemory::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {inUse_, peak_, buffers_, limit_};
}

BufferState::BufferState(Type t, DeviceCore* d, std::shared_ptr<DeviceMemory> memory)
    : type(std::move(t)), dims(type.shape()), bytes(type.isToken() ? 0 : type.byteSize()), device(d),
      memory_(std::move(memory)) {
  memory_->reserve(bytes);
}

BufferState::BufferState(DeviceCore* d, BufferState& donor)
    : type(donor.type), dims(donor.dims), bytes(donor.bytes), device(d), memory_(donor.memory_) {
  std::lock_guard<std::mutex> lock(donor.mutex_);
  donor.memoryMoved_ = true;
}

BufferState::~BufferState() {
  bool release;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    release = freeLocked();
  }
  if (release) memory_->release(bytes);
}

namespace {
[[noreturn]] void throwGone(bool donated) {
  throw ApiFailure(FailureCode::FailedPrecondition,
                   donated ? "the buffer was donated to an execution" : "the buffer was deleted");
}
}  // namespace

bool BufferState::freeLocked() {
  if (deleted_) return false;
  deleted_ = true;
  value_ = interp::HostValue();
  return !memoryMoved_;
}

void BufferState::use(bool donate) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (deleted_ || handleDeleted_ || donated_) throwGone(donated_);
  ++uses_;
  if (donate) donated_ = true;
}

void BufferState::undonate() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    donated_ = false;
  }
  endUse();
}

interp::HostValue BufferState::take() {
  interp::HostValue value;
  bool deleted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    deleted = deleted_;
    if (!deleted) value = value_;
  }
  endUse();
  if (deleted) throwGone(false);
  return value;
}

const void* BufferState::storage() {
  use();
  if (std::optional<Failure> failure = ready->await()) {
    endUse();
    throw ApiFailure(failure->code, failure->message);
  }
  const void* address = nullptr;
  bool tensor = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!deleted_ && value_.isTensor()) {
      tensor = true;
      address = value_.tensor().denseStorage();
    }
  }
  endUse();
  if (deleted()) throwGone(false);
  if (!tensor) throw ApiFailure(FailureCode::InvalidArgument, "a " + type.str() + " buffer has no address");
  return address;
}

void BufferState::endUse() {
  bool release = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --uses_;
    if ((handleGone_ || handleDeleted_ || donated_) && uses_ == 0) release = freeLocked();
  }
  if (release) memory_->release(bytes);
}

void BufferState::fill(interp::HostValue value) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!deleted_) value_ = std::move(value);
  }
  ready->set();
}

void BufferState::dropHandle() {
  bool release = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    handleGone_ = true;
    if (uses_ == 0) release = freeLocked();
  }
  if (release) memory_->release(bytes);
}

void BufferState::remove() {
  bool release = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (donated_) return;
    handleDeleted_ = true;
    if (uses_ == 0) release = freeLocked();
  }
  if (release) memory_->release(bytes);
}

bool BufferState::deleted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return deleted_ || handleDeleted_ || donated_;
}

bool BufferState::donated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return donated_;
}

namespace {

// A program runs inline when it costs about what the thread hop would (a few µs): few
// flops (XLA's CPU client uses the same bound of 1000), small arrays, and nothing that
// may take long or wait: no loops, exchanges, I/O, side effects or custom calls. Called
// functions count as their bodies.
bool smallEnoughToRunInline(const Module& module, const Function& fn, const passes::Cost& cost) {
  constexpr double kFlops = 1000, kBytes = 64 * 1024;
  constexpr int64_t kElements = 4096;  // of any one value
  if (cost.flops >= kFlops || cost.bytes > kBytes) return false;
  bool small = true;
  std::vector<const Function*> pending{&fn}, seen{&fn};
  while (small && !pending.empty()) {
    const Function* f = pending.back();
    pending.pop_back();
    walk(f->body(), [&](Op& op) {
      const OpInfo& info = op.info();
      const OpCategory c = info.category;
      if (op.is(ops::While) || op.is(ops::CustomCall) || info.has(kSideEffect) ||
          c == OpCategory::Collective || c == OpCategory::Communication || c == OpCategory::Interpreter)
        small = false;
      for (const Value* v : op.results())
        if (v->type().isTensor() && v->type().numElements() > kElements) small = false;
      if (op.is(ops::FuncCall))
        if (const Function* callee = module.lookup(op.attr("callee").asString());
            callee && std::find(seen.begin(), seen.end(), callee) == seen.end()) {
          seen.push_back(callee);
          pending.push_back(callee);
        }
    });
  }
  return small;
}

}  // namespace

ProgramInfo::ProgramInfo(std::shared_ptr<const CompiledProgram> p, Placement where)
    : program(std::move(p)), placement(std::move(where)) {
  const Function& fn = program->entry();
  params = fn.paramTypes();
  results = fn.resultTypes();
  for (const Type& t : params) paramDims.push_back(t.isTensor() ? t.shape() : Shape{});
  for (const Type& t : results) resultDims.push_back(t.isTensor() ? t.shape() : Shape{});
  passes::Cost cost = passes::costOf(program->module(), fn);
  flops = cost.flops;
  bytesAccessed = cost.bytes;
  runsInline = smallEnoughToRunInline(program->module(), fn, cost);
  passes::BufferAssignment buffers = passes::assignBuffers(fn);
  tempBytes = buffers.arenaBytes;
  peakLiveBytes = buffers.peakLiveBytes;
}

}  // namespace kiln::runtime
