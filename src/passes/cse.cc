// Common subexpression elimination: an op structurally equal to an earlier one
// (same opcode, attributes, operands, result types and regions) is replaced by it.
// Region-aware: ops of a nested region see the ops before them in every enclosing
// region, but what a nested region defines is not visible outside it.
#include <unordered_map>

#include "passes/passes.h"
#include "passes/op_facts.h"

namespace kiln::passes {
namespace {

struct OpHash {
  size_t operator()(const Op* op) const { return op->structuralHash(); }
};
struct OpEqual {
  bool operator()(const Op* a, const Op* b) const { return a->structurallyEqual(*b); }
};
using Scope = std::unordered_map<const Op*, Op*, OpHash, OpEqual>;

bool mayMerge(const Op& op) {
  return op.numResults() > 0 && !op.info().isTerminator() && !hasSideEffects(op);
}

// The earlier op equal to `op` in any visible scope, innermost first.
Op* findEqual(const std::vector<Scope>& scopes, const Op* op) {
  for (auto s = scopes.rbegin(); s != scopes.rend(); ++s)
    if (auto it = s->find(op); it != s->end()) return it->second;
  return nullptr;
}

// Returns how many ops it removed.
int64_t eliminate(Region& region, std::vector<Scope>& scopes) {
  int64_t removed = 0;
  scopes.emplace_back();
  auto& ops = region.ops();
  for (auto it = ops.begin(); it != ops.end();) {
    Op* op = (it++)->get();
    // Nested regions first: equal regions compare equal only after their own CSE.
    for (size_t i = 0; i < op->numRegions(); ++i) removed += eliminate(op->region(i), scopes);
    if (!mayMerge(*op)) continue;
    if (Op* earlier = findEqual(scopes, op)) {
      for (size_t r = 0; r < op->numResults(); ++r) op->result(r)->replaceAllUsesWith(earlier->result(r));
      earlier->loc = mergeLocations({earlier->loc, op->loc});
      region.erase(op);
      ++removed;
    } else {
      scopes.back().emplace(op, op);
    }
  }
  scopes.pop_back();
  return removed;
}

class CsePass : public Pass {
 public:
  std::string_view name() const override { return "cse"; }
  bool run(Module& module, PassContext&) override {
    std::vector<Scope> scopes;
    int64_t removed = 0;
    for (const auto& fn : module.functions()) removed += eliminate(fn->body(), scopes);
    return removed > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> createCsePass() { return std::make_unique<CsePass>(); }

}  // namespace kiln::passes
