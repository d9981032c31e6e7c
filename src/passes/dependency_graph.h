// The ops of a region as a dependency graph, for passes that reorder them (the
// scheduler, and fusion restoring a valid order): an op comes after the producers of
// every value of the region it reads (nested regions included) and after the previous
// op with side effects, so effects keep their order. The terminator is not a node: it
// stays last.
#pragma once

#include <vector>

#include "ir/ir.h"

namespace kiln::passes {

struct DependencyGraph {
  std::vector<Op*> ops;                         // region order, terminator excluded
  std::vector<std::vector<Value*>> reads;       // per op: the region's values it reads
  std::vector<std::vector<size_t>> successors;  // per op: ops that must come after it
  std::vector<size_t> predecessors;             // per op: how many must come before it
};

DependencyGraph dependencyGraph(Region& region);

// Puts the graph's ops in `order` (indices into graph.ops, every one once), the
// terminator last; does nothing when `order` is the current one. Returns whether the
// order changed.
bool reorderRegion(Region& region, const DependencyGraph& graph, const std::vector<size_t>& order);

}  // namespace kiln::passes
