// Dead code elimination: an op whose results nobody uses goes, unless it has side
// effects (checks, collectives, rng, infeed/outfeed, custom calls, or a region holding
// one). Regions are swept bottom-up, last op first, so a dead chain goes in one sweep;
// nested regions are swept before the op that owns them is considered.
#include "passes/passes.h"
#include "passes/op_facts.h"

namespace kiln::passes {
namespace {

bool isDead(const Op& op) {
  if (op.info().isTerminator() || op.numResults() == 0) return false;
  for (const Value* r : op.results())
    if (r->hasUses()) return false;
  return !hasSideEffects(op);
}

// Returns how many ops it removed.
int64_t sweep(Region& region) {
  int64_t removed = 0;
  auto& ops = region.ops();
  for (auto it = ops.end(); it != ops.begin();) {
    --it;
    Op* op = it->get();
    for (size_t i = 0; i < op->numRegions(); ++i) removed += sweep(op->region(i));
    if (isDead(*op)) {
      auto next = std::next(it);
      region.erase(op);
      it = next;
      ++removed;
    }
  }
  return removed;
}

class DcePass : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  bool run(Module& module, PassContext&) override {
    int64_t removed = 0;
    for (const auto& fn : module.functions()) removed += sweep(fn->body());
    return removed > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> createDcePass() { return std::make_unique<DcePass>(); }

}  // namespace kiln::passes
