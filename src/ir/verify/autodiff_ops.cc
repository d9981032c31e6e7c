// Type rules: kiln's autodiff constructs (custom_jvp, custom_vjp, custom_lin, checkpoint;
// op_registry.cc says what each is). A custom-derivative op's results are its primal's,
// and its rule functions must have the signatures the transforms call them with, so a
// mismatch is a verifier error at the op's line rather than a failure deep inside jvp.
#include "ir/ops/compiler.h"
#include "ir/verify/rules.h"

namespace kiln {
namespace {

const Function* lookup(const InferContext& v, std::string_view attr) {
  Attribute sym = v.attr(attr);
  if (!v.module() || !sym.is(Attribute::Kind::SymbolRef)) return nullptr;
  return v.module()->lookup(sym.asString());
}

TypeList joined(const TypeList& a, const TypeList& b) {
  TypeList out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

enum class Side { Params, Results };

// Fails unless what @fn takes (or returns) is `expected`, which `meaning` explains.
void checkSignature(const InferContext& v, const Function& fn, Side side, const TypeList& expected,
                    const std::string& meaning) {
  const bool params = side == Side::Params;
  const TypeList& got = params ? fn.paramTypes() : fn.resultTypes();
  v.check(got == expected, [&] {
    return "@" + fn.name() + (params ? " takes (" : " returns (") + str(got) + "), but it must " +
           (params ? "take (" : "return (") + str(expected) + "): " + meaning;
  });
}

// custom_jvp: @jvp(primals..., tangents...) -> (results..., result tangents...).
void customJvpRule(InferContext& v) {
  inferCallResults(v, v.attr("primal"));
  const Function* primal = lookup(v, "primal");
  const Function* rule = lookup(v, "jvp");
  if (!primal || !rule) return;
  const TypeList& params = primal->paramTypes();
  const TypeList& results = primal->resultTypes();
  checkSignature(v, *rule, Side::Params, joined(params, params),
                 "the primal's parameters, then a tangent of each");
  checkSignature(v, *rule, Side::Results, joined(results, results),
                 "the primal's results, then a tangent of each");
}

// custom_vjp: @fwd(primals...) -> (results..., residuals...);
// @bwd(residuals..., result cotangents...) -> (parameter cotangents...).
void customVjpRule(InferContext& v) {
  inferCallResults(v, v.attr("primal"));
  const Function* primal = lookup(v, "primal");
  const Function* fwd = lookup(v, "fwd");
  const Function* bwd = lookup(v, "bwd");
  if (!primal || !fwd || !bwd) return;
  const TypeList& params = primal->paramTypes();
  const TypeList& results = primal->resultTypes();
  checkSignature(v, *fwd, Side::Params, params, "the primal's parameters");
  const TypeList& out = fwd->resultTypes();
  v.check(out.size() >= results.size() && TypeList(out.begin(), out.begin() + static_cast<ptrdiff_t>(results.size())) == results,
          [&] {
            return "@" + fwd->name() + " returns (" + str(out) + "), but it must return the primal's results (" +
                   str(results) + "), then the residuals";
          });
  TypeList residuals(out.begin() + static_cast<ptrdiff_t>(results.size()), out.end());
  checkSignature(v, *bwd, Side::Params, joined(residuals, results),
                 "the residuals of @" + fwd->name() + ", then a cotangent of each result");
  checkSignature(v, *bwd, Side::Results, params, "a cotangent of each parameter");
}

// custom_lin(residuals..., parameter tangents...) -> (result tangents...), typed by @bwd,
// which maps result cotangents to parameter cotangents.
void customLinRule(InferContext& v) {
  const Function* bwd = lookup(v, "bwd");
  if (!bwd) {
    for (size_t i = 0; i < v.givenCount(); ++i) v.given(i);
    return;
  }
  const TypeList& takes = bwd->paramTypes();
  const TypeList& gives = bwd->resultTypes();
  int64_t r = v.integer("num_residuals");
  v.check(r >= 0 && static_cast<size_t>(r) <= takes.size(), [&] {
    return "num_residuals = " + std::to_string(r) + " must lie in [0, " + std::to_string(takes.size()) +
           "], the parameters of @" + bwd->name();
  });
  const size_t nr = static_cast<size_t>(r);
  TypeList residuals(takes.begin(), takes.begin() + static_cast<ptrdiff_t>(nr));
  v.check(v.operandTypes() == joined(residuals, gives), [&] {
    return "takes (" + str(v.operandTypes()) + "), but @" + bwd->name() + " needs (" + str(joined(residuals, gives)) +
           "): its residuals, then a tangent of each parameter";
  });
  for (size_t i = nr; i < takes.size(); ++i)
    v.infer(i - nr, takes[i], [&] { return "the result cotangents @" + bwd->name() + " takes"; });
}

// checkpoint: the region takes the operands and yields the results.
void checkpointRule(InferContext& v) {
  const std::string& policy = v.attrOrDefault("policy").asString();
  v.check(policy == "nothing_saveable" || policy == "dots_saveable" || policy == "everything_saveable", [&] {
    return "unknown policy '" + policy + "' (nothing_saveable, dots_saveable, everything_saveable)";
  });
  v.check(v.regionArgTypes(0) == v.operandTypes(), [&] {
    return "checkpoint region takes (" + str(v.regionArgTypes(0)) + "), expected the operand types (" +
           str(v.operandTypes()) + ")";
  });
  TypeList results = v.regionResultTypes(0);
  for (size_t i = 0; i < results.size(); ++i)
    v.infer(i, results[i], [] { return "the types the checkpoint region yields"; });
}

}  // namespace

void addAutodiffOpRules(RuleTable& table) {
  table.set(ops::CustomJvp, &customJvpRule);
  table.set(ops::CustomVjp, &customVjpRule);
  table.set(ops::CustomLin, &customLinRule);
  table.set(ops::Checkpoint, &checkpointRule);
}

}  // namespace kiln
