// Reverse mode, derived from forward mode as JAX derives it: build the jvp program, split
// it into the ops that depend on the tangent parameters (the linear part, each op with a
// transpose rule) and the rest (the primal part), copy the primal part, then walk the
// linear part backwards, turning each op's result cotangents into its linear operands'
// cotangents. The primal values the transposes read are the residuals; DCE later drops
// every primal op nothing reads.
#include <unordered_map>
#include <unordered_set>

#include "support/error.h"
#include "transforms/ad_rules.h"
#include "transforms/autodiff.h"
#include "transforms/jvp_emitter.h"

namespace kiln::transforms {
namespace {

// Accumulated cotangents of the linear values of the jvp program.
class Cotangents {
 public:
  explicit Cotangents(Builder& b) : b_(b) {}
  void add(const Value* v, Value* ct) {
    if (!ct) return;
    auto [it, fresh] = ct_.emplace(v, ct);
    if (!fresh) it->second = addTangents(b_, it->second, ct);
  }
  Value* of(const Value* v) const {
    auto it = ct_.find(v);
    return it == ct_.end() ? nullptr : it->second;
  }

 private:
  Builder& b_;
  std::unordered_map<const Value*, Value*> ct_;
};

}  // namespace

Function& vjp(Module& module, const Function& f, const std::string& name) {
  std::unique_ptr<Function> j = jvpFunction(module, f, name + ".jvp");
  const size_t numParams = f.numParams();
  const size_t numResults = f.resultTypes().size();

  TypeList params = f.paramTypes();
  for (const Type& t : f.resultTypes())
    if (isDifferentiable(t)) params.push_back(t);
  auto fn = std::make_unique<Function>(name, params, TypeList{});
  Builder b(fn->body(), &module);

  // The linear values: the tangent parameters and everything computed from them.
  std::unordered_set<const Value*> linear;
  for (size_t i = numParams; i < j->numParams(); ++i) linear.insert(j->param(i));
  ValueMap primal;
  for (size_t i = 0; i < numParams; ++i) primal[j->param(i)] = fn->param(i);
  std::vector<const Op*> linearOps;
  const Op* ret = j->body().terminator();
  for (const auto& op : j->body().ops()) {
    if (op.get() == ret) break;
    bool isLinear = false;
    for (Value* v : op->operands()) isLinear |= linear.count(v) > 0;
    if (!isLinear) {
      b.copy(*op, primal);
      continue;
    }
    if (!adRules()[op->code()].transpose)
      unsupportedRule(*op, "vjp", "reverse mode through it is not written yet; jvp works");
    for (Value* r : op->results()) linear.insert(r);
    linearOps.push_back(op.get());
  }
  auto mapped = [&](Value* v) {
    auto it = primal.find(v);
    return it == primal.end() ? v : it->second;
  };

  // Seed: the cotangent parameters flow into the tangent results.
  Cotangents ct(b);
  size_t next = numParams;
  for (size_t i = numResults; i < ret->numOperands(); ++i) {
    Value* seed = fn->param(next++);
    if (linear.count(ret->operand(i))) ct.add(ret->operand(i), seed);
  }
  for (auto it = linearOps.rbegin(); it != linearOps.rend(); ++it) {
    const Op& op = **it;
    std::vector<Value*> results;
    bool any = false;
    for (Value* r : op.results()) {
      results.push_back(ct.of(r));
      any |= results.back() != nullptr;
    }
    if (!any) continue;
    const AdRules& rules = adRules()[op.code()];
    TransposeArgs args{b, op, {}, {}, results};
    for (Value* v : op.operands()) {
      bool isLinear = linear.count(v) > 0;
      args.linear.push_back(isLinear);
      args.x.push_back(isLinear ? nullptr : mapped(v));
    }
    b.setLocation(op.loc);
    std::vector<Value*> out = op.numResults() ? rules.transpose(args) : std::vector<Value*>{};
    for (size_t i = 0; i < op.numOperands() && i < out.size(); ++i)
      if (args.linear[i]) ct.add(op.operand(i), out[i]);
  }

  std::vector<Value*> results;
  for (size_t i = 0; i < numResults; ++i) results.push_back(mapped(ret->operand(i)));
  for (size_t i = numParams; i < j->numParams(); ++i) {
    Value* c = ct.of(j->param(i));
    results.push_back(c ? c : zeros(b, j->param(i)->type()));
  }
  TypeList types;
  for (Value* v : results) types.push_back(v->type());
  fn->setResultTypes(types);
  b.ret(results, OpCode::FuncReturn);
  return *module.addFunction(std::move(fn));
}

Function& grad(Module& module, const Function& f, const GradOptions& options, const std::string& name) {
  const TypeList& results = f.resultTypes();
  if (results.size() != 1 || !results[0].isTensor() || results[0].rank() != 0 || !isFloat(results[0].dtype()))
    throw Error(ErrorKind::Usage, "grad of @" + f.name() + ": the function must return one floating-point scalar, not (" +
                                      [&] {
                                        std::string s;
                                        for (size_t i = 0; i < results.size(); ++i) s += (i ? ", " : "") + results[i].str();
                                        return s;
                                      }() + ")");
  // Where each parameter's cotangent is among vjp's results.
  std::vector<size_t> position(f.numParams(), 0);
  size_t next = 1;
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
  Function& back = vjp(module, f, name + ".vjp");
  auto fn = std::make_unique<Function>(name, f.paramTypes(), TypeList{});
  Builder b(fn->body(), &module);
  std::vector<Value*> args = fn->body().arguments();
  args.push_back(b.splat(results[0], 1));
  std::vector<Value*> all = b.inlineRegion(back.body(), args);
  module.eraseFunction(&back);
  std::vector<Value*> out;
  if (options.withValue) out.push_back(all[0]);
  for (size_t w : options.wrt) out.push_back(all[position[w]]);
  TypeList types;
  for (Value* v : out) types.push_back(v->type());
  fn->setResultTypes(types);
  b.ret(out, OpCode::FuncReturn);
  return *module.addFunction(std::move(fn));
}

}  // namespace kiln::transforms
