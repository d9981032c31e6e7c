// Rules of the custom-derivative ops, what JAX's custom_jvp and custom_vjp lower to: the
// transforms take the user's rule functions instead of differentiating the primal.
//
// custom_jvp: forward mode runs @jvp on the primals and tangents, and its results are
// the op's primals and tangents. The rule's tangent part must be linear in the tangents
// (as JAX requires), so reverse mode transposes it like any other jvp program.
//
// custom_vjp: forward mode has no rule (JAX refuses jvp of a custom_vjp too). Under vjp
// the jvp program runs @fwd for the primals and residuals and stands for the tangents
// with a kiln.custom_lin of the residuals and tangents; its transpose runs @bwd. So the
// forward phase of the gradient program runs @fwd and the backward phase @bwd.
//
// Batching goes through the rule functions: the op is rebuilt on the batched primal and
// rule functions (vmap of each, along 0 for every parameter and result, made once per
// function and size), its unbatched operands broadcast first, so the batched op keeps
// its custom rules for a later jvp or vjp.
#include "ir/ops/compiler.h"
#include "support/error.h"
#include "transforms/batch_emitter.h"
#include "transforms/jvp_emitter.h"
#include "transforms/op_rules.h"
#include "transforms/transposer.h"
#include "transforms/vmap.h"

namespace kiln::transforms {
namespace {

namespace O = ops;

const Function& ruleFunction(const Op& op, const Module* module, const char* attr, const char* transform) {
  const std::string& name = op.attr(attr).asString();
  const Function* fn = module ? module->lookup(name) : nullptr;
  if (!fn) unsupportedRule(op, transform, "its " + std::string(attr) + " function @" + name + " is not in the module");
  return *fn;
}

// The tangent of each result of `op` among `values` (null where not differentiable).
std::vector<Value*> resultTangents(const Op& op, const std::vector<Value*>& values) {
  std::vector<Value*> out;
  for (size_t i = 0; i < op.numResults(); ++i)
    out.push_back(isDifferentiable(op.result(i)->type()) ? values[i] : nullptr);
  return out;
}

std::vector<Value*> customJvpJvp(JvpArgs& a) {
  const Function& rule = ruleFunction(a.op, a.emitter.module(), "jvp", "jvp");
  std::vector<Value*> args = a.x;
  for (size_t i = 0; i < a.x.size(); ++i) args.push_back(orZeros(a.b, a.t[i], a.x[i]));
  std::vector<Value*> out = a.emitter.emitInlined(rule, args);
  const size_t n = a.op.numResults();
  for (size_t i = 0; i < n; ++i) a.y[i] = out[i];
  return resultTangents(a.op, std::vector<Value*>(out.begin() + static_cast<ptrdiff_t>(n), out.end()));
}

std::vector<Value*> customVjpJvp(JvpArgs& a) {
  if (!a.emitter.linearizing())
    unsupportedRule(a.op, "jvp",
                    "a custom_vjp function has no forward-mode derivative, as in JAX; give it a custom_jvp rule");
  const Module* module = a.emitter.module();
  const Function& fwd = ruleFunction(a.op, module, "fwd", "vjp");
  ruleFunction(a.op, module, "bwd", "vjp");
  std::vector<Value*> out = a.emitter.emitInlined(fwd, a.x);
  const size_t n = a.op.numResults();
  for (size_t i = 0; i < n; ++i) a.y[i] = out[i];
  std::vector<Value*> operands(out.begin() + static_cast<ptrdiff_t>(n), out.end());
  const int64_t residuals = static_cast<int64_t>(operands.size());
  for (size_t i = 0; i < a.x.size(); ++i) operands.push_back(orZeros(a.b, a.t[i], a.x[i]));
  TypeList types;
  for (Value* r : a.op.results()) types.push_back(r->type());
  Op* lin = a.b.create(O::CustomLin, operands,
                       {{"bwd", a.op.attr("bwd")}, {"num_residuals", Attribute::integer(residuals)}}, {}, types);
  return resultTangents(a.op, lin->results());
}

// The cotangents of the tangent operands are @bwd of the residuals and the results'
// cotangents.
std::vector<Value*> customLinTranspose(TransposeArgs& a) {
  const Function& bwd = ruleFunction(a.op, a.transposer.module(), "bwd", "vjp");
  const size_t residuals = static_cast<size_t>(a.op.attr("num_residuals").asInt());
  std::vector<Value*> args(a.x.begin(), a.x.begin() + static_cast<ptrdiff_t>(residuals));
  for (size_t i = 0; i < a.op.numResults(); ++i) args.push_back(orZeros(a.b, a.ct[i], a.op.result(i)));
  std::vector<Value*> cts(residuals, nullptr);
  for (Value* ct : a.b.inlineRegion(bwd.body(), args)) cts.push_back(ct);
  return cts;
}

// `f` batched along 0 in every parameter and result: made once per size, private.
const Function& batchedFunction(Module& module, const Function& f, int64_t size) {
  const std::string name = f.name() + ".vmap" + std::to_string(size);
  if (const Function* done = module.lookup(name)) return *done;
  VmapOptions options;
  options.size = size;
  Function& g = vmap(module, f, options, name);
  g.visibility = Visibility::Private;
  return g;
}

// The op again on its operands, all batched, each rule function replaced by its
// batched one.
std::vector<Value*> customDerivativeBatch(BatchArgs& a) {
  Module* module = a.emitter.module();
  if (!module) unsupportedRule(a.op, "vmap", "no module to add the batched rule functions to");
  std::vector<Value*> operands;
  for (size_t i = 0; i < a.x.size(); ++i) operands.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
  NamedAttrList attrs;
  for (const char* attr : {"primal", "jvp", "fwd", "bwd"}) {
    if (!a.op.attr(attr)) continue;
    const Function& f = ruleFunction(a.op, module, attr, "vmap");
    setAttr(attrs, attr, Attribute::symbol(batchedFunction(*module, f, a.size).name()));
  }
  TypeList types;
  for (Value* r : a.op.results()) types.push_back(Type::tensor(r->type().dtype(), batchedShape(a.size, r->type().shape())));
  return a.b.create(a.op.code(), operands, std::move(attrs), {}, types)->results();
}

}  // namespace

void addCustomDerivativeRules(OpTable<OpRules>& t) {
  t[O::CustomJvp].jvp = &customJvpJvp;
  t[O::CustomJvp].batch = &customDerivativeBatch;
  t[O::CustomVjp].jvp = &customVjpJvp;
  t[O::CustomVjp].batch = &customDerivativeBatch;
  t[O::CustomLin].transpose = &customLinTranspose;
}

}  // namespace kiln::transforms
