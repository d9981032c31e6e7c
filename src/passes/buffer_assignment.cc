// Buffer assignment over a function body in its current (scheduled) order: liveness
// intervals, then one sweep that gives each value a slice of the arena — best fit among
// the freed slices, in place over an operand that dies at the op when the op reads it
// element by element, or in the buffer of a donated parameter after that parameter's
// last use. Nested regions belong to the op that holds them (their values never reach
// memory of their own: a fusion's internals are registers, a loop body's are the op's).
#include "passes/buffer_assignment.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "passes/op_facts.h"
#include "passes/passes.h"
#include "support/error.h"

namespace kiln::passes {

int64_t valueBytes(const Type& type) {
  if (type.isTensor()) return type.byteSize();
  int64_t bytes = 0;
  if (type.isTuple())
    for (const Type& t : type.elements()) bytes += valueBytes(t);
  return bytes;
}

bool marksDonation(const Function& fn, size_t param) {
  if (param >= fn.argAttrs.size()) return false;
  Attribute donor = findAttr(fn.argAttrs[param], "jax.buffer_donor");
  if (donor && (donor.kind() != Attribute::Kind::Bool || donor.asBool())) return true;
  return static_cast<bool>(findAttr(fn.argAttrs[param], "tf.aliasing_output"));
}

void markDonation(Function& fn, size_t param) {
  if (fn.argAttrs.size() < fn.numParams()) fn.argAttrs.resize(fn.numParams());
  setAttr(fn.argAttrs.at(param), "jax.buffer_donor", Attribute::boolean(true));
}

namespace {

constexpr int64_t kAlignment = 64;  // a cache line; what vector loads want

int64_t aligned(int64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

bool isDonated(const Function& fn, size_t param, Donation donation) {
  if (donation != Donation::FromAttributes) return donation == Donation::All;
  return marksDonation(fn, param);
}

// Free space: slices of the arena (coalesced) and whole donated parameter buffers.
class FreeSpace {
 public:
  struct Slice {
    int64_t parameter = -1;  // -1: the arena
    int64_t offset = 0;
    int64_t size = 0;
  };

  Slice allocate(int64_t bytes) {
    int64_t size = aligned(bytes);
    auto arena = bySize_.lower_bound({size, 0});
    auto param = parameters_.lower_bound({bytes, -1});
    bool useParam = param != parameters_.end() && (arena == bySize_.end() || param->first <= arena->first);
    if (useParam) {
      Slice s{param->second, 0, param->first};
      parameters_.erase(param);
      return s;
    }
    if (arena != bySize_.end()) {
      auto [blockSize, offset] = *arena;
      removeArena(offset);
      if (blockSize > size) addArena(offset + size, blockSize - size);
      return {-1, offset, size};
    }
    // Grow the arena, starting inside a free slice at its end if there is one.
    int64_t offset = end_;
    if (!byOffset_.empty()) {
      auto last = std::prev(byOffset_.end());
      if (last->first + last->second == end_) {
        offset = last->first;
        removeArena(offset);
      }
    }
    end_ = offset + size;
    return {-1, offset, size};
  }

  void release(const Slice& s) {
    if (s.parameter >= 0) {
      parameters_.insert({s.size, s.parameter});
      return;
    }
    int64_t offset = s.offset, size = s.size;
    // Coalesce with the free neighbours.
    auto next = byOffset_.lower_bound(offset);
    if (next != byOffset_.end() && offset + size == next->first) {
      size += next->second;
      removeArena(next->first);
    }
    auto after = byOffset_.lower_bound(offset);
    if (after != byOffset_.begin()) {
      auto prev = std::prev(after);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        removeArena(prev->first);
      }
    }
    addArena(offset, size);
  }

  int64_t arenaSize() const { return end_; }

 private:
  void addArena(int64_t offset, int64_t size) {
    byOffset_[offset] = size;
    bySize_.insert({size, offset});
  }
  void removeArena(int64_t offset) {
    auto it = byOffset_.find(offset);
    bySize_.erase({it->second, offset});
    byOffset_.erase(it);
  }

  std::map<int64_t, int64_t> byOffset_;          // offset -> size
  std::set<std::pair<int64_t, int64_t>> bySize_; // (size, offset): best fit
  std::set<std::pair<int64_t, int64_t>> parameters_;  // (bytes, parameter)
  int64_t end_ = 0;
};


}  // namespace

BufferAssignment assignBuffers(const Function& fn, Donation donation) {
  BufferAssignment out;
  out.function = fn.name();
  const Region& body = fn.body();
  std::unordered_map<const Value*, size_t> indexOf;
  auto add = [&](const Value* v, BufferedValue::Kind kind, int64_t start) {
    indexOf[v] = out.values.size();
    BufferedValue b;
    b.value = v;
    b.kind = kind;
    b.bytes = valueBytes(v->type());
    b.start = b.end = start;
    out.values.push_back(std::move(b));
    out.totalValueBytes += out.values.back().bytes;
  };
  for (size_t i = 0; i < body.numArguments(); ++i) {
    add(body.argument(i), BufferedValue::Kind::Parameter, -1);
    BufferedValue& p = out.values.back();
    p.donated = isDonated(fn, i, donation);
    p.producer = "parameter " + std::to_string(i);
    if (i < fn.argLocs.size()) p.loc = fn.argLocs[i];
  }
  // Intervals: from the defining op to the last op that reads the value.
  std::vector<const Op*> ops;
  int64_t position = 0;
  for (const auto& op : body.ops()) {
    ops.push_back(op.get());
    for (const Value* v : valuesRead(*op, body)) out.values[indexOf.at(v)].end = position;
    if (!op->info().isTerminator()) {
      auto kind = op->is(ops::Constant) ? BufferedValue::Kind::Constant : BufferedValue::Kind::Temporary;
      for (const Value* r : op->results()) {
        add(r, kind, position);
        out.values.back().producer = std::string(op->name());
        out.values.back().loc = op->loc;
      }
    }
    ++position;
  }
  // The caller holds a parameter it did not donate for the whole call.
  for (size_t i = 0; i < body.numArguments(); ++i)
    if (!out.values[i].donated) out.values[i].end = std::max<int64_t>(out.values[i].end, position - 1);
  if (const Op* ret = body.terminator())
    for (const Value* v : ret->operands())
      if (BufferedValue& b = out.values[indexOf.at(v)]; b.kind == BufferedValue::Kind::Temporary)
        b.kind = BufferedValue::Kind::Output;

  // Which values die at each position.
  std::vector<std::vector<size_t>> dyingAt(ops.size() + 1);
  for (size_t i = 0; i < out.values.size(); ++i) dyingAt[out.values[i].end + 1].push_back(i);

  FreeSpace space;
  std::vector<FreeSpace::Slice> slices(out.values.size());
  std::vector<bool> holdsBuffer(out.values.size(), false);
  auto place = [&](size_t i, const FreeSpace::Slice& s) {
    slices[i] = s;
    holdsBuffer[i] = true;
    out.values[i].offset = s.offset;
    out.values[i].inParameter = s.parameter;
  };
  for (size_t i = 0; i < body.numArguments(); ++i)
    if (out.values[i].donated && out.values[i].bytes > 0) {
      slices[i] = {static_cast<int64_t>(i), 0, out.values[i].bytes};
      holdsBuffer[i] = true;  // the caller's buffer; free for reuse after the last read
    }
  auto releaseDead = [&](int64_t pos) {
    for (size_t i : dyingAt[pos + 1])
      if (holdsBuffer[i]) {
        space.release(slices[i]);
        holdsBuffer[i] = false;
      }
  };
  releaseDead(-1);  // parameters nobody reads
  for (size_t pos = 0; pos < ops.size(); ++pos) {
    const Op& op = *ops[pos];
    if (!op.info().isTerminator() && !op.is(ops::Constant)) {
      std::vector<bool> taken(op.numOperands(), false);
      for (const Value* r : op.results()) {
        size_t ri = indexOf.at(r);
        BufferedValue& result = out.values[ri];
        if (result.bytes == 0) continue;
        // In place: an operand that dies here, of the same size, read element by element.
        bool placed = false;
        for (size_t k = 0; k < op.numOperands() && !placed; ++k) {
          auto it = indexOf.find(op.operand(k));
          if (it == indexOf.end() || taken[k]) continue;
          size_t oi = it->second;
          const BufferedValue& operand = out.values[oi];
          if (!holdsBuffer[oi] || operand.end != static_cast<int64_t>(pos) || operand.bytes != result.bytes ||
              op.operand(k)->type().shape() != r->type().shape() || !readsOnlyAtWrittenIndex(op, k))
            continue;
          place(ri, slices[oi]);
          holdsBuffer[oi] = false;
          taken[k] = true;
          result.reusesBufferOf = static_cast<int64_t>(oi);
          ++out.inPlaceReuses;
          placed = true;
        }
        if (!placed) place(ri, space.allocate(result.bytes));
      }
    }
    releaseDead(static_cast<int64_t>(pos));
  }
  out.arenaBytes = space.arenaSize();

  // Peak live bytes: a value counts from its start to its end; an in-place result and
  // the operand it replaced share their bytes at the op that links them.
  std::vector<int64_t> delta(ops.size() + 2, 0);  // index = position + 1
  for (const BufferedValue& v : out.values) {
    delta[v.start + 1] += v.bytes;
    delta[v.end + 2] -= v.bytes;
    if (v.reusesBufferOf >= 0) {
      delta[v.start + 1] -= v.bytes;
      delta[v.start + 2] += v.bytes;
    }
  }
  int64_t live = 0;
  for (size_t p = 0; p + 1 < delta.size(); ++p) {
    live += delta[p];
    if (live > out.peakLiveBytes) {
      out.peakLiveBytes = live;
      out.peakPosition = static_cast<int64_t>(p) - 1;
    }
  }
  return out;
}

std::vector<size_t> BufferAssignment::liveAtPeak() const {
  std::vector<size_t> live;
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].start <= peakPosition && peakPosition <= values[i].end && values[i].bytes > 0) live.push_back(i);
  std::stable_sort(live.begin(), live.end(), [&](size_t a, size_t b) { return values[a].bytes > values[b].bytes; });
  return live;
}

std::string BufferAssignment::str(size_t topValues) const {
  auto kindName = [](BufferedValue::Kind k) {
    switch (k) {
      case BufferedValue::Kind::Parameter: return "parameter";
      case BufferedValue::Kind::Constant: return "constant";
      case BufferedValue::Kind::Temporary: return "temporary";
      case BufferedValue::Kind::Output: return "output";
    }
    return "?";
  };
  std::string s = fmt::format("buffer assignment of @{}\n  sum of value sizes {} B, peak live {} B at op {}, arena {} B, "
                              "{} in place\n",
                              function, totalValueBytes, peakLiveBytes, peakPosition, arenaBytes, inPlaceReuses);
  s += "  live at the peak (largest first):\n";
  size_t shown = 0;
  for (size_t i : liveAtPeak()) {
    if (shown++ == topValues) break;
    const BufferedValue& v = values[i];
    Location file = v.loc.fileLocation();
    s += fmt::format("    {:>12} B  {}  from {}{}\n", v.bytes, v.value->type().str(), v.producer,
                     file.isUnknown() ? "" : " at " + file.str());
  }
  s += "  values (index: kind, bytes, live [start, end], where):\n";
  for (size_t i = 0; i < values.size(); ++i) {
    const BufferedValue& v = values[i];
    std::string where = v.offset < 0 && v.inParameter < 0 ? "-"
                        : v.inParameter >= 0 ? fmt::format("parameter {} +{}", v.inParameter, v.offset)
                                             : fmt::format("arena +{}", v.offset);
    if (v.reusesBufferOf >= 0) where += fmt::format(" (in place of {})", v.reusesBufferOf);
    if (v.donated) where += " (donated)";
    s += fmt::format("    {}: {} {} B [{}, {}] {}  {}\n", i, kindName(v.kind), v.bytes, v.start, v.end, where,
                     v.producer);
  }
  return s;
}

namespace {

class BufferAssignmentPass : public Pass {
 public:
  std::string_view name() const override { return "buffers"; }
  // An analysis: it fills context.buffers and leaves the module as it was.
  bool run(Module& module, PassContext& context) override {
    context.buffers.clear();
    for (const auto& fn : module.functions()) {
      context.buffers.push_back(
          assignBuffers(*fn, context.options.donateAllParameters ? Donation::All : Donation::FromAttributes));
      if (!context.options.verifyEachPass) continue;
      std::vector<std::string> problems = checkBufferAssignment(*fn, context.buffers.back());
      if (!problems.empty())
        throw Error(ErrorKind::Internal, "buffer assignment of @" + fn->name() + " is wrong: " + problems.front());
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Pass> createBufferAssignmentPass() { return std::make_unique<BufferAssignmentPass>(); }

}  // namespace kiln::passes
