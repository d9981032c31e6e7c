// Profiles of cpu executions (profile.h).
#include "backends/cpu/profile.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <set>

#include "backends/cpu/native_kernels.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"

namespace kiln::cpu {
namespace {

// A small number per thread, in the order threads first record something.
int threadNumber() {
  static std::atomic<int> next{0};
  thread_local int mine = next.fetch_add(1);
  return mine;
}

// "lines 3-30, 195, 198": the source lines of an op, or of the ops in its regions (a
// fusion's), runs of consecutive lines as ranges, the first few ranges only.
std::string linesOf(const Op& op) {
  constexpr size_t kRanges = 6;
  std::set<uint32_t> lines;
  if (op.pos.known()) lines.insert(op.pos.line);
  for (size_t r = 0; r < op.numRegions(); ++r)
    for (const auto& inner : op.region(r).ops())
      if (inner->pos.known()) lines.insert(inner->pos.line);
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  for (uint32_t l : lines) {
    if (!ranges.empty() && ranges.back().second + 1 == l) ranges.back().second = l;
    else ranges.emplace_back(l, l);
  }
  std::string out;
  for (size_t i = 0; i < std::min(ranges.size(), kRanges); ++i) {
    out += i ? ", " : "";
    out += std::to_string(ranges[i].first);
    if (ranges[i].second != ranges[i].first) out += "-" + std::to_string(ranges[i].second);
  }
  if (ranges.size() > kRanges) out += ", … (" + std::to_string(lines.size()) + " lines)";
  return lines.empty() ? "" : (lines.size() == 1 ? "line " : "lines ") + out;
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

}  // namespace

void Profile::add(Slice s) {
  std::lock_guard<std::mutex> lock(mutex_);
  slices_.push_back(s);
}

void Profile::step(const Op& op, const char* kind, double start, double end, double bytes) {
  add({&op, kind, threadNumber(), start, end, bytes});
}

void Profile::chunk(const Op& op, double start, double end) { add({&op, nullptr, threadNumber(), start, end, -1}); }

void Profile::run(double start, double end) {
  std::lock_guard<std::mutex> lock(mutex_);
  runTime_ += end - start;
  ++runs_;
}

passes::Cost Profile::costOf(const Slice& s, std::map<const Op*, passes::Cost>& memo) const {
  auto [it, fresh] = memo.try_emplace(s.op);
  if (fresh) it->second = passes::costOf(module_, *s.op);
  passes::Cost cost = it->second;
  if (s.bytes >= 0) cost.bytes = s.bytes;
  return cost;
}

Profile::Work Profile::workPerRun() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<const Op*, passes::Cost> memo;
  Work work;
  for (const Slice& s : slices_) {
    // Control flow's slices hold their steps' slices, which count on their own.
    if (!s.kind || s.op->info().category == OpCategory::ControlFlow) continue;
    const passes::Cost cost = costOf(s, memo);
    // The contractions a step runs: the op itself, or those in a fusion's body.
    double contraction = 0;
    auto count = [&](const Op& op) {
      if (op.is(ops::DotGeneral) || op.is(ops::Dot) || op.is(ops::Convolution))
        contraction += passes::costOf(module_, op).flops;
    };
    count(*s.op);
    if (s.op->is(ops::Fusion))
      for (const auto& inner : s.op->region(0).ops()) count(*inner);
    work.contractionFlops += contraction;
    if (contraction == 0) {
      work.otherBytes += cost.bytes;
    } else if (s.op->is(ops::Fusion) && s.bytes < 0) {
      // A contraction moves its own operands (the GEMM rate includes that); the rest of
      // a fusion moves its results and the operands something else in it reads.
      for (const Value* v : s.op->results()) work.otherBytes += static_cast<double>(v->type().byteSize());
      const Region& body = s.op->region(0);
      for (size_t i = 0; i < s.op->numOperands(); ++i) {
        const Value* arg = body.argument(i);
        bool other = false;
        for (const Use& u : arg->uses())
          other |= !(u.user->is(ops::DotGeneral) || u.user->is(ops::Dot) || u.user->is(ops::Convolution));
        if (other) work.otherBytes += static_cast<double>(s.op->operand(i)->type().byteSize());
      }
    }
  }
  if (runs_ > 0) {
    work.contractionFlops /= runs_;
    work.otherBytes /= runs_;
  }
  return work;
}

std::string Profile::chromeTrace() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<const Op*, passes::Cost> costs;
  std::string out = "{\"traceEvents\": [\n";
  char buf[256];
  for (size_t i = 0; i < slices_.size(); ++i) {
    const Slice& s = slices_[i];
    const passes::Cost cost = costOf(s, costs);
    const double seconds = std::max(s.end - s.start, 1e-3) * 1e-6;
    std::string name = describeOp(*s.op) + (s.kind ? "" : " (chunk)");
    out += "  {\"name\": " + jsonString(name) + ", \"cat\": " + jsonString(s.kind ? s.kind : "chunk") +
           ", \"ph\": \"X\", \"pid\": 1";
    std::snprintf(buf, sizeof buf, ", \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f", s.thread, s.start, s.end - s.start);
    out += buf;
    out += ", \"args\": {\"source\": " + jsonString(linesOf(*s.op));
    // A chunk moves and computes its share, which the trace does not know: the step's
    // figures are given on the step's slice only.
    if (s.kind) {
      std::snprintf(buf, sizeof buf, ", \"bytes\": %.0f, \"flops\": %.0f, \"GB/s\": %.3f, \"GFLOP/s\": %.3f",
                    cost.bytes, cost.flops, cost.bytes / seconds / 1e9, cost.flops / seconds / 1e9);
      out += buf;
    }
    out += "}}";
    out += i + 1 < slices_.size() ? ",\n" : "\n";
  }
  return out + "]}\n";
}

std::string Profile::summary(size_t n) const {
  const Work work = workPerRun();
  char perRun[160];
  std::snprintf(perRun, sizeof perRun, "per run: %.4f GFLOP in dots and convolutions, %.2f MB moved by the other steps\n",
                work.contractionFlops / 1e9, work.otherBytes / 1e6);
  return slowestSteps(n) + perRun;
}

std::string Profile::slowestSteps(size_t n) const {
  std::lock_guard<std::mutex> lock(mutex_);
  struct Total {
    const char* kind = nullptr;
    double time = 0;
    size_t count = 0;
  };
  std::map<const Op*, Total> totals;
  for (const Slice& s : slices_) {
    if (!s.kind) continue;
    Total& t = totals[s.op];
    t.kind = s.kind;
    t.time += s.end - s.start;
    ++t.count;
  }
  std::vector<std::pair<const Op*, Total>> order(totals.begin(), totals.end());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second.time > b.second.time; });
  if (order.size() > n) order.resize(n);
  std::string out = "the " + std::to_string(order.size()) + " steps that took longest (of " +
                    std::to_string(totals.size()) + "; a loop's time includes the steps inside it):\n";
  char buf[64];
  for (const auto& [op, t] : order) {
    std::snprintf(buf, sizeof buf, "  %6.1f%%  %10.3f ms  ", runTime_ > 0 ? 100 * t.time / runTime_ : 0, t.time / 1e3);
    out += buf + std::string(t.kind) + " " + describeOp(*op) + " (" + linesOf(*op) + "), " + std::to_string(t.count) +
           " run" + (t.count == 1 ? "" : "s") + "\n";
  }
  return out;
}

}  // namespace kiln::cpu
