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

void sweep(Region& region) {
  auto& ops = region.ops();
  for (auto it = ops.end(); it != ops.begin();) {
    --it;
    Op* op = it->get();
    for (size_t i = 0; i < op->numRegions(); ++i) sweep(op->region(i));
    if (isDead(*op)) {
      auto next = std::next(it);
      region.erase(op);
      it = next;
    }
  }
}

class DcePass : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  void run(Module& module, PassContext&) override {
    for (const auto& fn : module.functions()) sweep(fn->body());
  }
};

}  // namespace

std::unique_ptr<Pass> createDcePass() { return std::make_unique<DcePass>(); }

}  // namespace kiln::passes
