// lower-chlo: replaces CHLO and composite ops by their executable decompositions (the
// registry row's `decompose`), as XLA lowers CHLO, so later layers see StableHLO primitives. Ops in the
// keep set (a backend with a native kernel for erf or top_k), ops without a decomposition
// and ops whose decomposition declines (an element type it does not cover) stay; the
// report counts each.
#include "ir/builder.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

class LowerChloPass : public Pass {
 public:
  std::string_view name() const override { return "lower-chlo"; }

  bool run(Module& module, PassContext& context) override {
    const std::set<std::string>& keep = context.options.keepChlo;
    bool changed = false;
    for (const auto& fn : module.functions()) {
      std::vector<Op*> ops;
      walk(fn->body(), [&](Op& op) {
        // StableHLO's own ops with a decomposition (batch norm) stay: the decomposition is
        // for the transforms, and the backends have kernels for them.
        const OpCategory c = op.info().category;
        if (op.info().decompose && (c == OpCategory::Chlo || c == OpCategory::Composite)) ops.push_back(&op);
      });
      for (Op* op : ops) {
        const OpInfo& info = op->info();
        if (keep.count(std::string(info.name)) || !info.decompose) continue;
        Builder b = Builder::before(*op, &module);
        std::vector<Value*> replacements = info.decompose(b, *op);
        if (replacements.empty()) continue;
        for (size_t i = 0; i < op->numResults(); ++i) op->result(i)->replaceAllUsesWith(replacements[i]);
        op->parentRegion()->erase(op);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createLowerChloPass() { return std::make_unique<LowerChloPass>(); }

}  // namespace kiln::passes
