// Constant folding through the reference interpreter: an op whose operands are all
// constants is evaluated at compile time and replaced by a constant — with exactly the
// interpreter's semantics, so folding can never change an answer. Not folded: ops with
// side effects or regions that reach outside, ops that grow a constant into a bigger
// one (broadcasts, iota: materializing them costs memory the op never needed), and
// results over the size cap (PipelineOptions::foldElementLimit).
#include <chrono>

#include "interp/interpreter.h"
#include "ir/builder.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "passes/op_facts.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

bool isConstant(const Value* v) {
  return !v->isArgument() && v->definingOp()->is(ops::Constant);
}

bool foldable(const Op& op, int64_t elementLimit) {
  if (op.numOperands() == 0 || op.numResults() == 0 || op.info().isTerminator()) return false;
  switch (op.code()) {
    case ops::Constant:
    case ops::Broadcast:
    case ops::BroadcastInDim:
    case ops::FuncCall:
    case ops::OptimizationBarrier:  // exists to stop exactly this
    case ops::Fusion:
      return false;
    default: break;
  }
  for (const Value* v : op.operands())
    if (!isConstant(v)) return false;
  int64_t elements = 0;
  for (const Value* r : op.results()) {
    if (!r->type().isTensor()) return false;
    elements += r->type().numElements();
  }
  return elements <= elementLimit && !hasSideEffects(op) && regionsSelfContained(op);
}

// Evaluates `op` on the constants it reads: a one-op function run by the interpreter.
// Returns nothing when the interpreter cannot (an unsupported op, a runtime error, or
// longer than a second: a compile-time loop must not hang the compiler).
std::optional<interp::HostValues> evaluate(const Op& op) {
  Module scratch;
  auto fn = std::make_unique<Function>("fold", op.operandTypes(), op.resultTypes());
  ValueMap map;
  interp::HostValues args;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    map[op.operand(i)] = fn->param(i);
    args.emplace_back(op.operand(i)->definingOp()->attr("value").asDense());
  }
  Region& body = fn->body();
  Op* copy = body.push_back(op.clone(map));
  body.push_back(makeOp(ops::FuncReturn, copy->results()));
  Function* f = scratch.addFunction(std::move(fn));
  interp::InterpOptions options;
  options.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  options.print = [](const std::string&) {};
  try {
    interp::Interpreter interpreter(scratch, options);
    interp::HostValues results = interpreter.call(*f, args);
    for (size_t r = 0; r < results.size(); ++r)
      if (!results[r].isTensor() || results[r].tensor().type() != op.result(r)->type()) return std::nullopt;
    return results;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Returns how many ops it folded.
int64_t foldRegion(Region& region, int64_t elementLimit) {
  int64_t folded = 0;
  auto& ops = region.ops();
  for (auto it = ops.begin(); it != ops.end();) {
    Op* op = (it++)->get();
    for (size_t i = 0; i < op->numRegions(); ++i) folded += foldRegion(op->region(i), elementLimit);
    if (!foldable(*op, elementLimit)) continue;
    std::optional<interp::HostValues> values = evaluate(*op);
    if (!values) continue;
    Region::iterator pos = region.positionOf(op);
    for (size_t r = 0; r < op->numResults(); ++r) {
      Literal literal = (*values)[r].tensor();
      Op* constant = region.insert(
          pos, makeOp(ops::Constant, {}, {{"value", Attribute::dense(std::move(literal))}}, {}, {}, op->loc));
      op->result(r)->replaceAllUsesWith(constant->result());
    }
    region.erase(op);
    ++folded;
  }
  return folded;
}

class ConstantFoldPass : public Pass {
 public:
  std::string_view name() const override { return "fold"; }
  bool run(Module& module, PassContext& context) override {
    int64_t folded = 0;
    for (const auto& fn : module.functions()) folded += foldRegion(fn->body(), context.options.foldElementLimit);
    return folded > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> createConstantFoldPass() { return std::make_unique<ConstantFoldPass>(); }

}  // namespace kiln::passes
