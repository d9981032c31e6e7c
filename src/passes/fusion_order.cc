// A kernel's ops in the order of what they compute (fusion_order.h).
#include "passes/fusion_order.h"

#include <unordered_set>

namespace kiln::passes {

std::vector<Op*> computeOrder(const Region& region, const std::vector<Op*>& group) {
  const std::unordered_set<const Op*> members(group.begin(), group.end());
  // The members `op` reads, in the order it reads them.
  auto producers = [&](Op* op) {
    std::vector<Op*> found;
    auto add = [&](Value* v) {
      if (!v->isArgument() && members.count(v->definingOp()) && v->definingOp() != op)
        found.push_back(v->definingOp());
    };
    for (Value* v : op->operands()) add(v);
    for (size_t r = 0; r < op->numRegions(); ++r)
      walk(op->region(r), [&](Op& nested) {
        for (Value* v : nested.operands()) add(v);
      });
    return found;
  };
  auto readByAMember = [&](const Op* op) {
    for (const Value* r : op->results())
      for (const Use& use : r->uses())
        if (Op* user = region.findAncestorOp(use.user); user && user != op && members.count(user)) return true;
    return false;
  };
  std::vector<Op*> order;
  std::unordered_set<const Op*> placed;
  struct Frame {
    Op* op;
    std::vector<Op*> producers;
    size_t next = 0;
  };
  // Depth first without recursion: a group may be a chain of thousands of ops.
  auto visit = [&](Op* root) {
    if (!placed.insert(root).second) return;
    std::vector<Frame> stack;
    stack.push_back({root, producers(root)});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.producers.size()) {
        Op* p = f.producers[f.next++];
        if (placed.insert(p).second) stack.push_back({p, producers(p)});
        continue;
      }
      order.push_back(f.op);
      stack.pop_back();
    }
  };
  for (Op* op : group)
    if (!readByAMember(op)) visit(op);
  for (Op* op : group) visit(op);  // (none is left: every op leads to one no member reads)
  return order;
}

}  // namespace kiln::passes
