// vmap over a function, and the batching engine (transforms/batch_emitter.h). Calls are
// batched through their callees' bodies (inlined).
#include "transforms/vmap.h"

#include "transforms/batch_emitter.h"

#include "ir/ops/stablehlo.h"
#include "support/error.h"
#include "transforms/op_rules.h"
#include "transforms/through_decomposition.h"

namespace kiln::transforms {

void BatchEmitter::map(const Value* original, Value* value, bool batched) {
  values_[original] = value;
  if (batched) batched_.insert(original);
  else batched_.erase(original);
}

Value* BatchEmitter::valueOf(Value* v) const {
  auto it = values_.find(v);
  if (it != values_.end()) return it->second;
  return parent_ ? parent_->valueOf(v) : v;
}

bool BatchEmitter::isBatched(const Value* v) const {
  if (values_.count(v)) return batched_.count(v) > 0;
  return parent_ && parent_->isBatched(v);
}

void BatchEmitter::emitRegion(const Region& region) {
  for (const auto& op : region.ops()) {
    if (op->info().isTerminator()) break;
    emitOp(*op);
  }
}

void BatchEmitter::emitCall(const Op& call) {
  const Function* callee = module_ ? module_->lookup(call.attr("callee").asString()) : nullptr;
  if (!callee) unsupportedRule(call, "vmap", "callee @" + call.attr("callee").asString() + " not found");
  for (size_t i = 0; i < call.numOperands(); ++i)
    map(callee->param(i), valueOf(call.operand(i)), isBatched(call.operand(i)));
  emitRegion(callee->body());
  const Op* ret = callee->body().terminator();
  for (size_t i = 0; i < call.numResults(); ++i)
    map(call.result(i), valueOf(ret->operand(i)), isBatched(ret->operand(i)));
}

void BatchEmitter::emitOp(const Op& op) {
  if (op.is(ops::FuncCall)) return emitCall(op);
  BatchArgs args{b_, op, {}, {}, size_, *this};
  bool any = false;
  for (Value* v : op.operands()) {
    args.x.push_back(valueOf(v));
    args.batched.push_back(isBatched(v));
    any |= args.batched.back();
  }
  std::vector<Value*> captured = capturedValues(op);
  bool capturesBatched = false;
  for (Value* v : captured) capturesBatched |= isBatched(v);
  const OpRules& rules = opRules()[op.code()];
  if (!any && !capturesBatched) {
    for (Value* v : op.operands()) values_.emplace(v, valueOf(v));
    for (Value* v : captured) values_.emplace(v, valueOf(v));
    b_.copy(op, values_);
    return;
  }
  if (!rules.batch && !capturesBatched &&
      throughDecomposition(
          op, module_, [&](const Op& inner) { emitOp(inner); },
          [&](size_t i, Value* part) { map(op.result(i), valueOf(part), isBatched(part)); },
          [&](const Value* v) {
            values_.erase(v);
            batched_.erase(v);
          }))
    return;
  // Ops with regions see batched captures through the emitter; others may not have any.
  if (!rules.batch || (capturesBatched && op.numRegions() && !rules.batchesRegions))
    unsupportedRule(op, "vmap", capturesBatched && rules.batch ? "a region that uses a batched value from outside" : "");
  b_.setLocation(op.loc);
  std::vector<Value*> out = rules.batch(args);
  for (size_t i = 0; i < op.numResults(); ++i) map(op.result(i), out[i], true);
}

namespace {

// The permutation moving dimension `from` of a rank-`rank` value to `to`.
Dims moving(int64_t rank, int64_t from, int64_t to) {
  Dims order;
  for (int64_t d = 0; d < rank; ++d)
    if (d != from) order.push_back(d);
  order.insert(order.begin() + to, from);
  return order;
}

}  // namespace

Function& vmap(Module& module, const Function& f, const VmapOptions& options, const std::string& name) {
  const size_t np = f.numParams(), nr = f.resultTypes().size();
  std::vector<std::optional<int64_t>> inAxes = options.inAxes;
  if (inAxes.empty()) inAxes.assign(np, 0);
  std::vector<int64_t> outAxes = options.outAxes;
  if (outAxes.empty()) outAxes.assign(nr, 0);
  auto fail = [&](const std::string& what) { throw Error(ErrorKind::Usage, "vmap of @" + f.name() + ": " + what); };
  if (inAxes.size() != np)
    fail("in_axes has " + std::to_string(inAxes.size()) + " entries for " + std::to_string(np) + " parameters");
  if (outAxes.size() != nr)
    fail("out_axes has " + std::to_string(outAxes.size()) + " entries for " + std::to_string(nr) + " results");
  const int64_t size = options.size;
  if (size <= 0) fail("the batch size must be positive, got " + std::to_string(size));
  for (size_t i = 0; i < np; ++i) {
    if (!inAxes[i]) continue;
    const Type& t = f.param(i)->type();
    if (!t.isTensor() || *inAxes[i] < 0 || *inAxes[i] > t.rank())
      fail("in_axes " + std::to_string(*inAxes[i]) + " does not fit parameter " + std::to_string(i) + " (" + t.str() + ")");
  }
  for (size_t i = 0; i < nr; ++i) {
    const Type& t = f.resultTypes()[i];
    if (!t.isTensor() || outAxes[i] < 0 || outAxes[i] > t.rank())
      fail("out_axes " + std::to_string(outAxes[i]) + " does not fit result " + std::to_string(i) + " (" + t.str() + ")");
  }

  TypeList params;
  for (size_t i = 0; i < np; ++i) {
    Type t = f.param(i)->type();
    if (inAxes[i]) {
      Shape s = t.shape();
      s.insert(s.begin() + *inAxes[i], size);
      t = Type::tensor(t.dtype(), s);
    }
    params.push_back(t);
  }
  auto fn = std::make_unique<Function>(name, params, TypeList{});
  Builder b(fn->body(), &module);
  BatchEmitter e(b, &module, size);
  for (size_t i = 0; i < np; ++i) {
    Value* p = fn->param(i);
    if (inAxes[i] && *inAxes[i] != 0) p = b.transpose(p, moving(p->type().rank(), *inAxes[i], 0));
    e.map(f.param(i), p, inAxes[i].has_value());
  }
  e.emitRegion(f.body());
  const Op* ret = f.body().terminator();
  std::vector<Value*> results;
  for (size_t i = 0; i < nr; ++i) {
    Value* r = batchedValue(b, e.valueOf(ret->operand(i)), e.isBatched(ret->operand(i)), size);
    if (outAxes[i] != 0) r = b.transpose(r, moving(r->type().rank(), 0, outAxes[i]));
    results.push_back(r);
  }
  TypeList types;
  for (Value* v : results) types.push_back(v->type());
  fn->setResultTypes(types);
  b.ret(results, ops::FuncReturn);
  return *module.addFunction(std::move(fn));
}

}  // namespace kiln::transforms
