// Scheduling: reorders the ops of each function body so that fewer bytes are live at
// once, the way XLA's list scheduler does. Among the ops whose operands are ready it
// picks the one that frees the most bytes (operands it is the last reader of) minus the
// bytes it defines; ties keep program order. Ops with side effects keep their relative
// order, nested regions keep theirs, and the terminator stays last.
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "passes/buffer_assignment.h"
#include "passes/passes.h"
#include "support/error.h"
#include "passes/op_facts.h"

namespace kiln::passes {
namespace {

struct Node {
  Op* op;
  size_t index;                     // original position
  std::vector<size_t> successors;
  size_t waitingFor = 0;            // predecessors not yet scheduled
  int64_t freed = 0;                // bytes of operands it is the last unscheduled reader of
  int64_t defined = 0;              // bytes of its results
  int64_t version = 0;              // bumped when `freed` changes (lazy heap entries)
};

void scheduleRegion(Region& region) {
  if (region.size() < 3) return;
  std::vector<Node> nodes;
  std::unordered_map<const Op*, size_t> indexOf;
  for (auto& op : region.ops()) {
    indexOf[op.get()] = nodes.size();
    nodes.push_back({op.get(), nodes.size()});
  }
  size_t terminator = region.terminator() ? indexOf[region.terminator()] : nodes.size();

  // Dependencies and, per value, how many distinct ops still have to read it.
  std::unordered_map<const Value*, std::vector<size_t>> readers;
  std::vector<std::vector<Value*>> reads(nodes.size());
  size_t lastEffect = nodes.size();
  for (Node& n : nodes) {
    if (n.index == terminator) continue;
    reads[n.index] = valuesRead(*n.op, region);
    for (Value* v : reads[n.index]) {
      readers[v].push_back(n.index);
      if (!v->isArgument()) {
        nodes[indexOf[v->definingOp()]].successors.push_back(n.index);
        ++n.waitingFor;
      }
    }
    for (Value* r : n.op->results()) n.defined += valueBytes(r->type());
    if (hasSideEffects(*n.op)) {
      if (lastEffect != nodes.size()) {
        nodes[lastEffect].successors.push_back(n.index);
        ++n.waitingFor;
      }
      lastEffect = n.index;
    }
  }
  // What the terminator returns stays live to the end: reading it last frees nothing.
  std::unordered_set<const Value*> returned;
  if (terminator != nodes.size())
    for (Value* v : nodes[terminator].op->operands()) returned.insert(v);
  std::unordered_map<const Value*, size_t> unscheduledReaders;
  for (auto& [v, rs] : readers) {
    unscheduledReaders[v] = rs.size();
    if (rs.size() == 1 && !returned.count(v)) nodes[rs[0]].freed += valueBytes(v->type());
  }
  // Region arguments never free anything: the caller owns them.
  for (Value* a : region.arguments())
    if (auto it = readers.find(a); it != readers.end() && it->second.size() == 1 && !returned.count(a))
      nodes[it->second[0]].freed -= valueBytes(a->type());

  struct Entry {
    int64_t priority;
    size_t index;
    int64_t version;
    bool operator<(const Entry& o) const {  // max-heap: highest priority, then earliest
      return priority != o.priority ? priority < o.priority : index > o.index;
    }
  };
  std::priority_queue<Entry> ready;
  auto push = [&](const Node& n) { ready.push({n.freed - n.defined, n.index, n.version}); };
  for (const Node& n : nodes)
    if (n.index != terminator && n.waitingFor == 0) push(n);

  std::vector<size_t> order;
  std::vector<bool> done(nodes.size(), false);
  while (!ready.empty()) {
    Entry e = ready.top();
    ready.pop();
    Node& n = nodes[e.index];
    if (done[n.index] || e.version != n.version) continue;
    done[n.index] = true;
    order.push_back(n.index);
    for (Value* v : reads[n.index]) {
      if (v->isArgument()) continue;
      size_t& left = unscheduledReaders[v];
      if (--left != 1 || returned.count(v)) continue;
      // The one reader left now frees `v`: it moves up.
      for (size_t r : readers[v]) {
        if (done[r]) continue;
        nodes[r].freed += valueBytes(v->type());
        ++nodes[r].version;
        if (nodes[r].waitingFor == 0) push(nodes[r]);
      }
    }
    for (size_t s : n.successors)
      if (--nodes[s].waitingFor == 0) push(nodes[s]);
  }
  if (terminator != nodes.size()) order.push_back(terminator);
  if (order.size() != nodes.size()) throw Error(ErrorKind::Internal, "schedule: the region has a dependency cycle");

  std::vector<std::unique_ptr<Op>> owned;
  for (size_t i : order) owned.push_back(region.take(nodes[i].op));
  for (auto& op : owned) region.push_back(std::move(op));
}

class SchedulePass : public Pass {
 public:
  std::string_view name() const override { return "schedule"; }
  void run(Module& module, PassContext&) override {
    for (const auto& fn : module.functions()) scheduleRegion(fn->body());
  }
};

}  // namespace

std::unique_ptr<Pass> createSchedulePass() { return std::make_unique<SchedulePass>(); }

}  // namespace kiln::passes
