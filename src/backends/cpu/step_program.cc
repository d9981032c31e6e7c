// Step programs (step_program.h): built from the function body and its buffer
// assignment, run over a pooled arena.
#include "backends/cpu/step_program.h"

#include <cstdlib>
#include <cstring>

#include "backends/cpu/blas_dot.h"
#include "backends/cpu/threads.h"
#include "interp/interpreter.h"
#include "passes/buffer_assignment.h"
#include "support/error.h"

namespace kiln::cpu {
namespace {

constexpr int64_t kArenaAlignment = 64;

std::string where(const Op& op) {
  std::string s(op.name());
  if (op.pos.known()) s += " at line " + std::to_string(op.pos.line);
  return s;
}

}  // namespace

std::unique_ptr<StepProgram> StepProgram::build(const Function& fn, const CompiledOps& natives, std::string& whyNot) {
  std::unique_ptr<StepProgram> p(new StepProgram(fn));
  for (size_t i = 0; i < fn.numParams(); ++i)
    if (!fn.param(i)->type().isTensor()) {
      whyNot = "parameter " + std::to_string(i) + " is not a tensor";
      return nullptr;
    }
  const passes::BufferAssignment assignment = passes::assignBuffers(fn);
  std::unordered_map<const Value*, Place> places;
  for (size_t i = 0; i < fn.numParams(); ++i) places[fn.param(i)] = {Place::In::Parameter, i, 0};
  for (const passes::BufferedValue& v : assignment.values)
    if (v.kind == passes::BufferedValue::Kind::Temporary && v.offset >= 0)
      places[v.value] = {Place::In::Arena, 0, v.offset};
  // The function's results get buffers of their own (handed to the caller without a
  // copy); a value returned twice is handed out twice.
  const Op& ret = *fn.body().terminator();
  for (size_t r = 0; r < ret.numOperands(); ++r) {
    const Value* v = ret.operand(r);
    const Op* def = v->definingOp();
    if (def && def->info().category != OpCategory::Constant && (!places.count(v) || places[v].in == Place::In::Arena)) {
      bool first = true;
      for (size_t q = 0; q < r; ++q) first = first && ret.operand(q) != v;
      if (first) {
        places[v] = {Place::In::Result, p->resultOps_.size(), 0};
        p->resultOps_.push_back(def);
        p->resultIndex_.push_back(v->index());
      }
    }
  }
  // Past the assignment's arena: where epilogue GEMMs write their product, then a sink
  // for results nobody reads (the assignment gives them no bytes).
  int64_t dotBytes = 0, sinkBytes = 0;
  const Place sink{Place::In::Arena, 0, -2};
  for (const auto& op : fn.body().ops()) {
    if (op->info().isTerminator()) continue;
    if (op->info().category == OpCategory::Constant && op->numResults() == 1 && op->result()->type().isTensor() &&
        op->attr("value").is(Attribute::Kind::Dense)) {
      Literal dense = op->attr("value").asDense();
      dense.mutableStorage();  // kernels and GEMMs read every element
      places[op->result()] = {Place::In::Constant, p->constants_.size(), 0};
      p->constants_.push_back(std::move(dense));
      continue;
    }
    Step step;
    step.op = op.get();
    if (natives.blas.count(op.get())) {
      step.dot = op.get();
    } else if (auto k = natives.kernels.kernels.find(op.get()); k != natives.kernels.kernels.end()) {
      step.kernel = &k->second;
      if (auto d = natives.epilogueDots.find(op.get()); d != natives.epilogueDots.end()) {
        step.dot = d->second;
        dotBytes = std::max(dotBytes, passes::valueBytes(step.dot->result()->type()));
      }
    } else {
      whyNot = where(*op) + " has no native step";
      return nullptr;
    }
    for (const Value* v : op->operands()) {
      auto it = places.find(v);
      if (it == places.end()) {
        whyNot = "an operand of " + where(*op) + " has no buffer";
        return nullptr;
      }
      step.operands.push_back(it->second);
    }
    for (const Value* v : op->results()) {
      if (!places.count(v)) {
        places[v] = sink;
        sinkBytes = std::max(sinkBytes, passes::valueBytes(v->type()));
      }
      step.results.push_back(places[v]);
    }
    p->steps_.push_back(std::move(step));
  }
  for (const Value* v : ret.operands()) {
    auto it = places.find(v);
    if (it == places.end()) {
      whyNot = "a result of @" + fn.name() + " has no buffer";
      return nullptr;
    }
    p->returned_.push_back(it->second);
  }
  auto aligned = [](int64_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; };
  p->scratchOffset_ = aligned(assignment.arenaBytes);
  const int64_t sinkOffset = p->scratchOffset_ + aligned(dotBytes);
  for (Step& s : p->steps_)
    for (Place& r : s.results)
      if (r.in == Place::In::Arena && r.offset == sink.offset) r.offset = sinkOffset;
  p->arenaBytes_ = sinkOffset + sinkBytes;
  return p;
}

StepProgram::Arena StepProgram::takeArena() const {
  {
    std::lock_guard<std::mutex> lock(arenasMutex_);
    if (!arenas_.empty()) {
      Arena a = std::move(arenas_.back());
      arenas_.pop_back();
      return a;
    }
  }
  size_t bytes = static_cast<size_t>((arenaBytes_ + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment);
  Arena a;
  a.bytes = {static_cast<uint8_t*>(std::aligned_alloc(kArenaAlignment, std::max<size_t>(bytes, kArenaAlignment))),
             [](uint8_t* b) { std::free(b); }};
  if (!a.bytes) throw Error(ErrorKind::Runtime, "out of memory: an arena of " + std::to_string(bytes) + " bytes");
  return a;
}

void StepProgram::giveBack(Arena arena) const {
  std::lock_guard<std::mutex> lock(arenasMutex_);
  arenas_.push_back(std::move(arena));
}

interp::HostValues StepProgram::run(const interp::HostValues& args, std::atomic<uint64_t>& runs) const {
  interp::checkArguments(fn_, args);
  // Kernels read dense buffers: a splat argument is expanded into a copy.
  std::vector<Literal> params;
  params.reserve(args.size());
  for (const interp::HostValue& a : args) {
    params.push_back(a.tensor());
    if (params.back().isSplat() && params.back().numElements() > 1) params.back().mutableStorage();
  }
  std::vector<Literal> results;
  results.reserve(resultOps_.size());
  for (size_t r = 0; r < resultOps_.size(); ++r) results.push_back(results_.take(*resultOps_[r], resultIndex_[r]));
  Arena arena = takeArena();
  auto address = [&](const Place& p) -> void* {
    switch (p.in) {
      case Place::In::Parameter: return const_cast<uint8_t*>(params[p.index].storage());
      case Place::In::Constant: return const_cast<uint8_t*>(constants_[p.index].storage());
      case Place::In::Result: return results[p.index].mutableStorage();
      case Place::In::Arena: break;
    }
    return arena.bytes.get() + p.offset;
  };
  std::vector<void*> buffers;
  try {
    for (const Step& s : steps_) {
      buffers.clear();
      for (const Place& p : s.operands) buffers.push_back(address(p));
      if (s.dot && !s.kernel) {
        blasDotInto(*s.dot, buffers[0], buffers[1], address(s.results[0]));
      } else {
        if (s.dot) {
          // The epilogue's dot, from the fusion operands its region arguments stand for.
          void* product = arena.bytes.get() + scratchOffset_;
          blasDotInto(*s.dot, buffers[s.dot->operand(0)->index()], buffers[s.dot->operand(1)->index()], product);
          buffers.push_back(product);
        }
        for (const Place& p : s.results) buffers.push_back(address(p));
        runKernel(*s.kernel, buffers.data());
      }
      runs.fetch_add(1, std::memory_order_relaxed);
    }
  } catch (...) {
    giveBack(std::move(arena));
    throw;
  }
  giveBack(std::move(arena));
  interp::HostValues out;
  out.reserve(returned_.size());
  std::vector<bool> handedOut(results.size(), false);
  for (size_t r = 0; r < returned_.size(); ++r) {
    const Place& p = returned_[r];
    if (p.in == Place::In::Parameter) {
      out.emplace_back(args[p.index].tensor());
    } else if (p.in == Place::In::Constant) {
      out.emplace_back(constants_[p.index]);
    } else if (p.in == Place::In::Result) {
      if (!handedOut[p.index]) results_.keep(*resultOps_[p.index], resultIndex_[p.index], results[p.index]);
      handedOut[p.index] = true;
      out.emplace_back(results[p.index]);
    } else {
      throw Error(ErrorKind::Internal, "a result of @" + fn_.name() + " lives in the arena");
    }
  }
  return out;
}

}  // namespace kiln::cpu
