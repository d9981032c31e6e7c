// Forward mode: the jvp program computes each op as the original does, and right after
// it the op's tangent by its jvp rule (transforms/op_rules.h). Tangents that are zero
// stay symbolic (absent), so ops on integers or on values that do not depend on the
// differentiated parameters make no tangent work. Calls are differentiated through
// their callees' bodies (inlined); an op without a rule but with a decomposition (the
// CHLO and composite ops) is differentiated through the decomposition.
#include <memory>
#include <unordered_map>

#include "ir/ops/stablehlo.h"
#include "support/error.h"
#include "transforms/autodiff.h"
#include "transforms/jvp_emitter.h"
#include "transforms/op_rules.h"
#include "transforms/through_decomposition.h"

namespace kiln::transforms {

bool hasTangent(const Type& type) { return isDifferentiable(type); }

void JvpEmitter::emitRegion(const Region& region) {
  for (const auto& op : region.ops()) {
    if (op->info().isTerminator()) break;
    emitOp(*op);
  }
}

Value* JvpEmitter::primalOf(Value* original) const {
  auto it = primal_.find(original);
  if (it != primal_.end()) return it->second;
  return parent_ ? parent_->primalOf(original) : original;
}

Value* JvpEmitter::tangentOf(const Value* v) const {
  auto it = tangents_.find(v);
  if (it != tangents_.end()) return it->second;
  return parent_ ? parent_->tangentOf(v) : nullptr;
}

std::vector<Value*> JvpEmitter::primals(const std::vector<Value*>& values) const {
  std::vector<Value*> out;
  for (Value* v : values) out.push_back(primalOf(v));
  return out;
}

void JvpEmitter::emitCall(const Op& call) {
  const Function* callee = module_ ? module_->lookup(call.attr("callee").asString()) : nullptr;
  if (!callee) unsupportedRule(call, "jvp", "callee @" + call.attr("callee").asString() + " not found");
  for (size_t i = 0; i < call.numOperands(); ++i) {
    primal_[callee->param(i)] = primalOf(call.operand(i));
    setTangent(callee->param(i), tangentOf(call.operand(i)));
  }
  emitRegion(callee->body());
  const Op* ret = callee->body().terminator();
  for (size_t i = 0; i < call.numResults(); ++i) {
    primal_[call.result(i)] = primalOf(ret->operand(i));
    setTangent(call.result(i), tangentOf(ret->operand(i)));
  }
}

std::vector<Value*> JvpEmitter::emitInlined(const Function& callee, const std::vector<Value*>& args) {
  // A function body captures nothing: an emitter of its own, which no tangent of this
  // one's can reach.
  JvpEmitter inner(b_, module_, linearizing_);
  for (size_t i = 0; i < callee.numParams(); ++i) inner.mapPrimal(callee.param(i), args[i]);
  inner.emitRegion(callee.body());
  return inner.primals(callee.body().terminator()->operands());
}

void JvpEmitter::emitOp(const Op& op) {
  if (op.is(ops::FuncCall)) return emitCall(op);
  std::vector<Value*> t;
  bool anyTangent = false;
  for (Value* v : op.operands()) {
    t.push_back(tangentOf(v));
    anyTangent |= t.back() != nullptr;
  }
  // The copy below looks values up in this emitter's map only: bring in what an
  // enclosing emitter mapped (operands and captures of a nested region's op).
  std::vector<Value*> captured = capturedValues(op);
  for (Value* v : captured) anyTangent |= tangentOf(v) != nullptr;
  if (parent_) {
    for (Value* v : op.operands()) primal_.emplace(v, primalOf(v));
    for (Value* v : captured) primal_.emplace(v, primalOf(v));
  }
  bool differentiableResult = false;
  for (Value* r : op.results()) differentiableResult |= isDifferentiable(r->type());
  const OpRules& rules = opRules()[op.code()];
  const bool byRule = rules.jvp && !(rules.differentiatesThroughDecomposition && rules.differentiatesThroughDecomposition(op));
  if (anyTangent && differentiableResult && !byRule &&
      throughDecomposition(
          op, module_, [&](const Op& inner) { emitOp(inner); },
          [&](size_t i, Value* part) {
            primal_[op.result(i)] = primalOf(part);
            setTangent(op.result(i), tangentOf(part));
          },
          [&](const Value* v) {
            primal_.erase(v);
            tangents_.erase(v);
          }))
    return;
  Op* copy = b_.copy(op, primal_);
  if (!anyTangent || !differentiableResult) return;
  if (!rules.jvp) unsupportedRule(op, "jvp");
  JvpArgs args{b_, op, primals(op.operands()), copy->results(), t, *this};
  b_.setLocation(op.loc);
  std::vector<Value*> out = rules.jvp(args);
  // The rule's ops (after the copy, to the end) point at the op's source line too.
  Region& here = *copy->parentRegion();
  for (auto it = std::next(here.positionOf(copy)); it != here.ops().end(); ++it)
    if (!(*it)->pos.known()) (*it)->pos = op.pos;
  for (size_t i = 0; i < op.numResults(); ++i)
    if (i < out.size() && isDifferentiable(op.result(i)->type())) setTangent(op.result(i), out[i]);
  // A rule that computed the primals anew (a loop carrying both) replaces the copy.
  bool replaced = false;
  for (size_t i = 0; i < op.numResults(); ++i)
    if (args.y[i] != copy->result(i)) {
      primal_[op.result(i)] = args.y[i];
      replaced = true;
    }
  if (replaced) {
    bool used = false;
    for (Value* r : copy->results()) used |= r->hasUses();
    if (!used) copy->parentRegion()->erase(copy);
  }
}

std::unique_ptr<Function> jvpFunction(const Module& module, const Function& f, const std::string& name,
                                      bool linearizing) {
  TypeList params = f.paramTypes();
  for (const Type& t : f.paramTypes())
    if (isDifferentiable(t)) params.push_back(t);
  auto fn = std::make_unique<Function>(name, params, TypeList{});
  Builder b(fn->body(), &module);
  JvpEmitter emitter(b, &module, linearizing);
  size_t next = f.numParams();
  for (size_t i = 0; i < f.numParams(); ++i) {
    emitter.mapPrimal(f.param(i), fn->param(i));
    if (isDifferentiable(f.param(i)->type())) emitter.setTangent(f.param(i), fn->param(next++));
  }
  emitter.emitRegion(f.body());
  const Op* ret = f.body().terminator();
  std::vector<Value*> results = emitter.primals(ret->operands());
  for (Value* r : ret->operands())
    if (isDifferentiable(r->type())) results.push_back(orZeros(b, emitter.tangentOf(r), emitter.primalOf(r)));
  TypeList types;
  for (Value* v : results) types.push_back(v->type());
  fn->setResultTypes(types);
  b.ret(results, ops::FuncReturn);
  return fn;
}

Function& jvp(Module& module, const Function& f, const std::string& name) {
  return *module.addFunction(jvpFunction(module, f, name));
}

}  // namespace kiln::transforms
