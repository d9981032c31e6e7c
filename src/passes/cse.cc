// Common subexpression elimination: an op structurally equal to an earlier one
// (same opcode, attributes, operands, result types and regions; the operands of a
// commutative op in either order) is replaced by it.
// Region-aware: ops of a nested region see the ops before them in every enclosing
// region, but what a nested region defines is not visible outside it.
#include <unordered_map>

#include "passes/passes.h"
#include "passes/op_facts.h"

namespace kiln::passes {
namespace {

// Commutative ops (the op table's kCommutative: add, multiply, maximum, and, ...) take
// their operands as a set: a + b and b + a are one value.
bool commutative(const Op& op) { return op.info().has(kCommutative) && op.numOperands() == 2 && op.numRegions() == 0; }

struct OpHash {
  size_t operator()(const Op* op) const {
    if (!commutative(*op)) return op->structuralHash();
    // The same for both operand orders: the operands' hashes summed.
    size_t h = static_cast<size_t>(op->code()) * 1000003 ^
               (std::hash<const Value*>()(op->operand(0)) + std::hash<const Value*>()(op->operand(1)));
    h = h * 1000003 ^ op->result()->type().hash();
    for (const NamedAttribute& a : op->attrs()) h = h * 1000003 ^ (std::hash<std::string>()(a.name) ^ a.value.hash());
    return h;
  }
};
struct OpEqual {
  bool operator()(const Op* a, const Op* b) const {
    if (a->structurallyEqual(*b)) return true;
    return commutative(*a) && a->code() == b->code() && a->operand(0) == b->operand(1) &&
           a->operand(1) == b->operand(0) && a->resultTypes() == b->resultTypes() && a->attrs() == b->attrs();
  }
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
