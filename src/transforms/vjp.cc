// Reverse mode, derived from forward mode as JAX derives it: build the jvp program, split
// it into the ops that depend on the tangent parameters (the linear part, each op with a
// transpose rule) and the rest (the primal part), copy the primal part, then walk the
// linear part backwards, turning each op's result cotangents into its linear operands'
// cotangents. The primal values the transposes read are the residuals; DCE later drops
// every primal op nothing reads.
#include "transforms/transposer.h"

#include "ir/ops/stablehlo.h"
#include "support/error.h"
#include "transforms/autodiff.h"
#include "transforms/jvp_emitter.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {

void Transposer::forward(const Region& region, const std::vector<Value*>& args, const std::vector<bool>& linearArg) {
  for (size_t i = 0; i < region.numArguments(); ++i) {
    if (linearArg[i]) linear_.insert(region.argument(i));
    else primal_[region.argument(i)] = args[i];
  }
  for (const auto& op : region.ops()) {
    if (op->info().isTerminator()) break;
    forwardOp(*op);
  }
}

void Transposer::forwardOp(const Op& op) {
  std::vector<Value*> captured = capturedValues(op);
  std::vector<bool> linearOperand;
  bool isLinearOp = false;
  for (Value* v : op.operands()) {
    linearOperand.push_back(isLinear(v));
    isLinearOp |= linearOperand.back();
  }
  for (Value* v : captured) isLinearOp |= isLinear(v);
  if (!isLinearOp) {
    // The copy looks values up in this map only: bring in what enclosing ones mapped.
    for (Value* v : op.operands()) primal_.emplace(v, primalOf(v));
    for (Value* v : captured) primal_.emplace(v, primalOf(v));
    b_.copy(op, primal_);
    copied_.insert(&op);
    return;
  }
  const OpRules& rules = opRules()[op.code()];
  if (!rules.transpose) unsupportedRule(op, "vjp", "reverse mode through it is not written yet; jvp works");
  if (rules.split) {
    b_.setLocation(op.loc);
    SplitArgs args{b_, op, linearOperand, *this};
    std::vector<bool> linearResult = rules.split(args);
    for (size_t i = 0; i < op.numResults(); ++i)
      if (linearResult[i]) linear_.insert(op.result(i));
  } else {
    for (Value* r : op.results()) linear_.insert(r);
  }
  linearOps_.push_back(&op);
}

void Transposer::addCotangent(const Value* v, Value* ct) {
  if (!ct) return;
  auto [it, fresh] = ct_.emplace(v, ct);
  if (!fresh) it->second = addTangents(b_, it->second, ct);
}

void Transposer::backward() {
  for (auto it = linearOps_.rbegin(); it != linearOps_.rend(); ++it) {
    const Op& op = **it;
    std::vector<Value*> results;
    bool any = false;
    for (Value* r : op.results()) {
      results.push_back(isLinear(r) ? cotangentOf(r) : nullptr);
      any |= results.back() != nullptr;
    }
    if (!any) continue;
    TransposeArgs args{b_, op, {}, {}, results, *this};
    for (Value* v : op.operands()) {
      bool lin = isLinear(v);
      args.linear.push_back(lin);
      args.x.push_back(lin ? nullptr : residual(v));
    }
    b_.setLocation(op.loc);
    std::vector<Value*> out = opRules()[op.code()].transpose(args);
    for (size_t i = 0; i < op.numOperands() && i < out.size(); ++i)
      if (args.linear[i]) addCotangent(op.operand(i), out[i]);
  }
}

Value* Transposer::cotangentOf(const Value* v) const {
  auto it = ct_.find(v);
  return it == ct_.end() ? nullptr : it->second;
}

Value* Transposer::primalOf(Value* v) const {
  auto it = primal_.find(v);
  if (it != primal_.end()) return it->second;
  if (parent_) return parent_->primalOf(v);
  throw Error(ErrorKind::Internal, "vjp: a primal value of the jvp program (" + v->type().str() + ", defined by " +
                                       (v->definingOp() ? std::string(v->definingOp()->name()) : "an argument") +
                                       ") was never computed in the reverse program");
}

bool Transposer::isLinear(const Value* v) const {
  return linear_.count(v) > 0 || (parent_ && parent_->isLinear(v));
}

// What the remat policy keeps: parameters, and under Dots the outputs of dots and
// convolutions; values of enclosing regions and of ops forward() did not copy (the
// primal parts of loops) are always kept.
bool Transposer::kept(const Value* v) const {
  const Op* def = v->definingOp();
  if (options_.remat == Remat::None || !def || !copied_.count(def)) return true;
  if (options_.remat == Remat::Dots)
    return def->is(ops::DotGeneral) || def->is(ops::Dot) || def->is(ops::Convolution);
  return false;
}

Value* Transposer::residual(Value* v) {
  if (options_.remat == Remat::None) return primalOf(v);
  if (auto it = recomputed_.find(v); it != recomputed_.end()) return it->second;
  if (kept(v)) {
    // Read through a barrier (once), so that CSE cannot merge what is recomputed from it
    // with the forward computation.
    Value* barrier = b_.create(ops::OptimizationBarrier, {primalOf(v)})->result();
    recomputed_[v] = barrier;
    return barrier;
  }
  const Op& def = *v->definingOp();
  ValueMap map;
  for (Value* operand : def.operands()) map[operand] = residual(operand);
  for (Value* c : capturedValues(def)) map.emplace(c, primalOf(c));
  Op* copy = b_.copy(def, map);
  for (size_t i = 0; i < def.numResults(); ++i) recomputed_[def.result(i)] = copy->result(i);
  return recomputed_.at(v);
}

const std::vector<Value*>& Transposer::residuals(const Op* op) const {
  auto it = residuals_.find(op);
  if (it == residuals_.end()) throw Error(ErrorKind::Internal, "no residuals kept for " + std::string(op->name()));
  return it->second;
}

Transposer& Transposer::inlinedRegion(const Op* op, Remat remat) {
  auto inner = std::make_unique<Transposer>(b_, module_, this);
  inner->options_.remat = remat;
  return *(inlined_[op] = std::move(inner));
}

Transposer& Transposer::inlinedRegion(const Op* op) const {
  auto it = inlined_.find(op);
  if (it == inlined_.end()) throw Error(ErrorKind::Internal, "no transposer kept for " + std::string(op->name()));
  return *it->second;
}

namespace {

// vjp, with cotangent parameters for the differentiable results where `seeded` (empty:
// all); the others get none and make no work (grad's auxiliary outputs).
Function& reverse(Module& module, const Function& f, const std::string& name, const VjpOptions& options,
                  const std::vector<bool>& seeded) {
  std::unique_ptr<Function> j = jvpFunction(module, f, name + ".jvp", /*linearizing=*/true);
  const size_t numParams = f.numParams();
  const size_t numResults = f.resultTypes().size();
  std::vector<size_t> withCotangent;  // the results that take one
  for (size_t i = 0; i < numResults; ++i)
    if (isDifferentiable(f.resultTypes()[i]) && (seeded.empty() || seeded[i])) withCotangent.push_back(i);

  TypeList params = f.paramTypes();
  for (size_t i : withCotangent) params.push_back(f.resultTypes()[i]);
  auto fn = std::make_unique<Function>(name, params, TypeList{});
  Builder b(fn->body(), &module);
  Transposer t(b, &module, nullptr, options);
  // The jvp's tangent parameters are the linear values it starts from.
  std::vector<Value*> args(j->numParams(), nullptr);
  std::vector<bool> linear(j->numParams(), true);
  for (size_t i = 0; i < numParams; ++i) {
    args[i] = fn->param(i);
    linear[i] = false;
  }
  t.forward(j->body(), args, linear);
  // The cotangent parameters flow into the tangent results (the jvp returns one per
  // differentiable result, in order).
  const Op* ret = j->body().terminator();
  std::vector<size_t> tangentResult(numResults, 0);
  for (size_t i = 0, next = numResults; i < numResults; ++i)
    if (isDifferentiable(f.resultTypes()[i])) tangentResult[i] = next++;
  for (size_t k = 0; k < withCotangent.size(); ++k) {
    Value* tangent = ret->operand(tangentResult[withCotangent[k]]);
    if (t.isLinear(tangent)) t.addCotangent(tangent, fn->param(numParams + k));
  }
  t.backward();

  std::vector<Value*> results;
  for (size_t i = 0; i < numResults; ++i) results.push_back(t.primalOf(ret->operand(i)));
  for (size_t i = numParams; i < j->numParams(); ++i) {
    Value* c = t.cotangentOf(j->param(i));
    results.push_back(c ? c : zeros(b, j->param(i)->type()));
  }
  TypeList types;
  for (Value* v : results) types.push_back(v->type());
  fn->setResultTypes(types);
  b.ret(results, ops::FuncReturn);
  return *module.addFunction(std::move(fn));
}

}  // namespace

Function& vjp(Module& module, const Function& f, const std::string& name, const VjpOptions& options) {
  return reverse(module, f, name, options, {});
}

Function& grad(Module& module, const Function& f, const GradOptions& options, const std::string& name) {
  const TypeList& results = f.resultTypes();
  const bool scalarLoss = !results.empty() && results[0].isTensor() && results[0].rank() == 0 && isFloat(results[0].dtype());
  auto listed = [&] {
    std::string s;
    for (size_t i = 0; i < results.size(); ++i) s += (i ? ", " : "") + results[i].str();
    return s;
  };
  if (options.hasAux && (!scalarLoss || results.size() < 2))
    throw Error(ErrorKind::Usage, "grad of @" + f.name() +
                                      " with auxiliary outputs: the function must return a floating-point scalar "
                                      "(the loss), then the auxiliary outputs, not (" + listed() + ")");
  if (!options.hasAux && (!scalarLoss || results.size() != 1))
    throw Error(ErrorKind::Usage,
                "grad of @" + f.name() + ": the function must return one floating-point scalar, not (" + listed() + ")" +
                    (scalarLoss ? " (with auxiliary outputs after the loss, use has_aux: --has-aux)" : ""));
  // Where each parameter's cotangent is among vjp's results.
  std::vector<size_t> position(f.numParams(), 0);
  size_t next = results.size();
  for (size_t i = 0; i < f.numParams(); ++i)
    if (isDifferentiable(f.param(i)->type())) position[i] = next++;
  for (size_t w : options.wrt) {
    if (w >= f.numParams())
      throw Error(ErrorKind::Usage, "grad of @" + f.name() + ": no parameter " + std::to_string(w) + " (it has " +
                                        std::to_string(f.numParams()) + ")");
    if (!position[w])
      throw Error(ErrorKind::Usage, "grad of @" + f.name() + ": parameter " + std::to_string(w) + " is " +
                                        f.param(w)->type().str() + ", which has no gradient");
  }
  std::vector<bool> seeded(results.size(), false);
  seeded[0] = true;  // the loss; auxiliary outputs are returned, not differentiated
  Function& back = reverse(module, f, name + ".vjp", options.vjp, seeded);
  auto fn = std::make_unique<Function>(name, f.paramTypes(), TypeList{});
  Builder b(fn->body(), &module);
  std::vector<Value*> args = fn->body().arguments();
  args.push_back(b.splat(results[0], 1));
  std::vector<Value*> all = b.inlineRegion(back.body(), args);
  module.eraseFunction(&back);
  std::vector<Value*> out;
  if (options.withValue) out.push_back(all[0]);
  for (size_t w : options.wrt) out.push_back(all[position[w]]);
  if (options.hasAux) out.insert(out.end(), all.begin() + 1, all.begin() + static_cast<ptrdiff_t>(results.size()));
  TypeList types;
  for (Value* v : out) types.push_back(v->type());
  fn->setResultTypes(types);
  b.ret(out, ops::FuncReturn);
  return *module.addFunction(std::move(fn));
}

}  // namespace kiln::transforms
