#include "testing/lift_constants.h"

#include "ir/ops/stablehlo.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"

namespace kiln::testing {
namespace {

bool isCheck(const Op& op) {
  if (op.info().category == OpCategory::Check) return true;
  if (!op.is(ops::CustomCall)) return false;
  Attribute target = op.attr("call_target_name");
  return target && target.asString().starts_with("check.");
}

}  // namespace

std::vector<Literal> liftConstants(Module& module, Function& fn) {
  passes::PassContext context;
  passes::runPipeline(module, {"inline"}, context);
  std::vector<Op*> checks;
  for (const auto& op : fn.body().ops())
    if (isCheck(*op)) checks.push_back(op.get());
  for (Op* op : checks) fn.body().erase(op);
  passes::runPipeline(module, {"dce"}, context);

  std::vector<Literal> inputs;
  std::vector<Op*> lifted;
  for (const auto& op : fn.body().ops()) {
    if (!op->is(ops::Constant)) continue;
    const Type& t = op->result()->type();
    if (!isFloat(t.dtype()) && !isComplex(t.dtype())) continue;
    Value* param = fn.body().addArgument(t);
    fn.argAttrs.emplace_back();
    fn.argLocs.emplace_back();
    op->result()->replaceAllUsesWith(param);
    inputs.push_back(op->attr("value").asDense());
    lifted.push_back(op.get());
  }
  for (Op* op : lifted) fn.body().erase(op);
  return inputs;
}

}  // namespace kiln::testing
