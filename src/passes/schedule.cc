// Scheduling: reorders the ops of each function body so that fewer bytes are live at
// once, the way XLA's list scheduler does. Among the ops whose operands are ready it
// picks the one that frees the most bytes (operands it is the last reader of) minus the
// bytes it defines; ties keep program order. Ops with side effects keep their relative
// order, nested regions keep theirs, and the terminator stays last.
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "passes/buffer_assignment.h"
#include "passes/dependency_graph.h"
#include "passes/passes.h"
#include "support/error.h"

namespace kiln::passes {
namespace {

// Per op of the dependency graph: what choosing it now would free and define.
struct Cost {
  int64_t freed = 0;    // bytes of values it is the last unscheduled reader of
  int64_t defined = 0;  // bytes of its results
  int64_t version = 0;  // bumped when `freed` changes (stale heap entries are skipped)
};

// Returns whether the order changed.
bool scheduleRegion(Region& region) {
  if (region.size() < 3) return false;
  DependencyGraph graph = dependencyGraph(region);
  size_t n = graph.ops.size();
  std::vector<Cost> cost(n);
  std::unordered_map<const Value*, std::vector<size_t>> readers;
  for (size_t i = 0; i < n; ++i) {
    for (Value* v : graph.reads[i]) readers[v].push_back(i);
    for (Value* r : graph.ops[i]->results()) cost[i].defined += valueBytes(r->type());
  }
  // Reading a value last frees it, except what the terminator returns (live to the end)
  // and region arguments (the caller owns them).
  std::unordered_set<const Value*> pinned;
  if (const Op* terminator = region.terminator())
    for (Value* v : terminator->operands()) pinned.insert(v);
  for (Value* a : region.arguments()) pinned.insert(a);
  std::unordered_map<const Value*, size_t> unscheduledReaders;
  for (auto& [v, rs] : readers) {
    unscheduledReaders[v] = rs.size();
    if (rs.size() == 1 && !pinned.count(v)) cost[rs[0]].freed += valueBytes(v->type());
  }

  struct Entry {
    int64_t priority;
    size_t index;
    int64_t version;
    bool operator<(const Entry& o) const {  // max-heap: highest priority, then earliest
      return priority != o.priority ? priority < o.priority : index > o.index;
    }
  };
  std::priority_queue<Entry> ready;
  auto push = [&](size_t i) { ready.push({cost[i].freed - cost[i].defined, i, cost[i].version}); };
  std::vector<size_t> waiting = graph.predecessors;
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) push(i);

  std::vector<size_t> order;
  std::vector<bool> done(n, false);
  while (!ready.empty()) {
    Entry e = ready.top();
    ready.pop();
    if (done[e.index] || e.version != cost[e.index].version) continue;
    done[e.index] = true;
    order.push_back(e.index);
    for (Value* v : graph.reads[e.index]) {
      if (pinned.count(v) || --unscheduledReaders[v] != 1) continue;
      // The one reader left now frees `v`: it moves up.
      for (size_t r : readers[v]) {
        if (done[r]) continue;
        cost[r].freed += valueBytes(v->type());
        ++cost[r].version;
        if (waiting[r] == 0) push(r);
      }
    }
    for (size_t s : graph.successors[e.index])
      if (--waiting[s] == 0) push(s);
  }
  if (order.size() != n) throw Error(ErrorKind::Internal, "schedule: the region has a dependency cycle");
  return reorderRegion(region, graph, order);
}

class SchedulePass : public Pass {
 public:
  std::string_view name() const override { return "schedule"; }
  bool run(Module& module, PassContext&) override {
    bool reordered = false;
    for (const auto& fn : module.functions()) reordered = scheduleRegion(fn->body()) || reordered;
    return reordered;
  }
};

}  // namespace

std::unique_ptr<Pass> createSchedulePass() { return std::make_unique<SchedulePass>(); }

}  // namespace kiln::passes
