// Algebraic simplification: placeholder until the rewrite rules land.
#include "passes/passes.h"

namespace kiln::passes {
namespace {
class SimplifyPass : public Pass {
 public:
  std::string_view name() const override { return "simplify"; }
  void run(Module&, PassContext&) override {}
};
}  // namespace
std::unique_ptr<Pass> createSimplifyPass() { return std::make_unique<SimplifyPass>(); }
}  // namespace kiln::passes
