#include "passes/dependency_graph.h"

#include <algorithm>
#include <unordered_map>

#include "passes/op_facts.h"

namespace kiln::passes {

DependencyGraph dependencyGraph(Region& region) {
  DependencyGraph g;
  std::unordered_map<const Op*, size_t> indexOf;
  for (auto& op : region.ops()) {
    if (op->info().isTerminator()) continue;
    indexOf[op.get()] = g.ops.size();
    g.ops.push_back(op.get());
  }
  size_t n = g.ops.size();
  g.reads.resize(n);
  g.successors.resize(n);
  g.predecessors.assign(n, 0);
  auto edge = [&](size_t from, size_t to) {
    g.successors[from].push_back(to);
    ++g.predecessors[to];
  };
  size_t lastEffect = n;
  for (size_t i = 0; i < n; ++i) {
    g.reads[i] = valuesRead(*g.ops[i], region);
    for (Value* v : g.reads[i])
      if (!v->isArgument()) edge(indexOf.at(v->definingOp()), i);
    if (hasSideEffects(*g.ops[i])) {
      if (lastEffect != n) edge(lastEffect, i);
      lastEffect = i;
    }
  }
  return g;
}

bool reorderRegion(Region& region, const DependencyGraph& graph, const std::vector<size_t>& order) {
  if (std::is_sorted(order.begin(), order.end())) return false;
  Op* terminator = region.terminator();
  std::vector<std::unique_ptr<Op>> owned;
  for (size_t i : order) owned.push_back(region.take(graph.ops[i]));
  if (terminator) owned.push_back(region.take(terminator));
  for (auto& op : owned) region.push_back(std::move(op));
  return true;
}

}  // namespace kiln::passes
