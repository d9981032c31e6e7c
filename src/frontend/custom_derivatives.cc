// custom_jvp, custom_vjp and checkpoint from C++ (kiln/transforms.h): the user's
// functions are traced into private functions of the module being built and tied
// together by the IR's autodiff constructs (kiln.custom_jvp, kiln.custom_vjp,
// kiln.checkpoint), whose rules live with the transforms (src/transforms/rules/). A
// frontend function whose decomposition differentiates badly is a composite with a
// custom_jvp (docs/ops.md).
//
// The rule functions may close over arrays. Those become operands of the op like the
// arguments, so every function of one op takes the same operand list (the arguments,
// then each function's captures); what the backward rule closes over reaches it through
// the residuals. Closed-over arrays are constants to the rules: their cotangents are
// zero. So a rule may not close over a value of an enclosing trace (JAX refuses to
// differentiate one too): that is an error asking for it as an argument.
#include "frontend/staging.h"
#include "kiln/transforms.h"

namespace kiln::detail {
namespace {

TypeList typesOf(const std::vector<Array>& arrays) {
  TypeList out;
  for (const Array& a : arrays) out.push_back(implOf(a).type);
  return out;
}

TracedPiece traceRule(TraceState& outer, const std::string& what, const std::string& name, const FlatFn& f,
                      const std::vector<ParamSpec>& params) {
  TracedPiece piece = tracePiece(*outer.module, name, f, params);
  for (const Array& c : piece.captures)
    if (c.is_tracer())
      throw Error(ErrorKind::Usage, what + ": " + name + " closes over a traced value (" + c.type_string() +
                                        "); its derivatives would be lost: pass it as an argument");
  return piece;
}

void expectTypes(const std::string& what, const TypeList& got, const TypeList& expected) {
  if (got == expected) return;
  throw Error(ErrorKind::Type, what + " (" + str(got) + "), but it must be (" + str(expected) + ")");
}

TraceState& enclosing(const std::string& what) {
  TraceState* t = currentTrace();
  if (!t) throw Error(ErrorKind::Usage, what + ": called outside a trace (the caller runs the function itself then)");
  return *t;
}

}  // namespace

std::vector<Array> customJvpCall(const FlatFn& primal, const FlatFn& rule, const std::vector<Array>& args,
                                 const std::source_location& site) {
  return translated([&] {
    TraceState& t = enclosing("custom_jvp");
    Module& m = *t.module;
    const std::vector<ParamSpec> specs = specsOf(args);
    TracedPiece p = traceRule(t, "custom_jvp", "custom_jvp_primal", primal, specs);
    std::vector<ParamSpec> ruleSpecs = specs;
    for (ParamSpec s : specs) ruleSpecs.push_back({s.type, false});
    TracedPiece j = traceRule(t, "custom_jvp", "custom_jvp_rule", rule, ruleSpecs);
    const TypeList results = p.function->resultTypes();
    TypeList expected = results;
    expected.insert(expected.end(), results.begin(), results.end());
    expectTypes("custom_jvp: the rule returns", j.function->resultTypes(), expected);
    // Operands: args, then the primal's and the rule's captures.
    const size_t n = args.size(), cp = p.captures.size(), cj = j.captures.size();
    const std::vector<Array> operands = concat(concat(args, p.captures), j.captures);
    const TypeList types = typesOf(operands);
    Function* primalW = buildFunction(m, freshName(m, "custom_jvp_f"), types, [&](Builder& b, const std::vector<Value*>& x) {
      return b.call(*p.function, slice(x, 0, n + cp));
    }, Visibility::Private);
    TypeList withTangents = types;
    withTangents.insert(withTangents.end(), types.begin(), types.end());
    Function* ruleW = buildFunction(m, freshName(m, "custom_jvp_jvp"), withTangents, [&](Builder& b, const std::vector<Value*>& x) {
      // The captures' tangents are dropped: they are constants to the rule.
      return b.call(*j.function, joined(joined(slice(x, 0, n), slice(x, n + cp + cj, n)), slice(x, n + cp, cj)));
    }, Visibility::Private);
    t.builder->setLocation(locationOf(site));
    return t.tracersOf(t.builder->customJvp(*primalW, *ruleW, t.valuesOf(operands)));
  });
}

std::vector<Array> customVjpCall(const FlatFn& primal, const FlatFn& fwd, const FlatFn& bwd,
                                 const std::vector<Array>& args, const std::source_location& site) {
  return translated([&] {
    TraceState& t = enclosing("custom_vjp");
    Module& m = *t.module;
    const std::vector<ParamSpec> specs = specsOf(args);
    TracedPiece p = traceRule(t, "custom_vjp", "custom_vjp_primal", primal, specs);
    TracedPiece f = traceRule(t, "custom_vjp", "custom_vjp_fwd", fwd, specs);
    const TypeList results = p.function->resultTypes();
    const TypeList fwdResults = f.function->resultTypes();
    if (fwdResults.size() < results.size() ||
        !std::equal(results.begin(), results.end(), fwdResults.begin()))
      throw Error(ErrorKind::Type, "custom_vjp: fwd returns (" + str(fwdResults) + "), which must begin with f's results (" +
                                       str(results) + ")");
    const TypeList residuals(fwdResults.begin() + static_cast<ptrdiff_t>(results.size()), fwdResults.end());
    std::vector<ParamSpec> bwdSpecs;
    for (const Type& r : residuals) bwdSpecs.push_back({r, false});
    for (const Type& r : results) bwdSpecs.push_back({r, false});
    TracedPiece g = traceRule(t, "custom_vjp", "custom_vjp_bwd", bwd, bwdSpecs);
    expectTypes("custom_vjp: bwd returns", g.function->resultTypes(), typesOf(args));
    // Operands: args, then the captures of f, fwd and bwd; bwd's come through the
    // residuals.
    const size_t n = args.size(), cp = p.captures.size(), cf = f.captures.size(), cb = g.captures.size();
    const std::vector<Array> operands = concat(concat(concat(args, p.captures), f.captures), g.captures);
    const TypeList types = typesOf(operands);
    Function* primalW = buildFunction(m, freshName(m, "custom_vjp_f"), types, [&](Builder& b, const std::vector<Value*>& x) {
      return b.call(*p.function, slice(x, 0, n + cp));
    }, Visibility::Private);
    Function* fwdW = buildFunction(m, freshName(m, "custom_vjp_fwd"), types, [&](Builder& b, const std::vector<Value*>& x) {
      std::vector<Value*> out = b.call(*f.function, joined(slice(x, 0, n), slice(x, n + cp, cf)));
      return joined(out, slice(x, n + cp + cf, cb));
    }, Visibility::Private);
    TypeList bwdTypes = residuals;
    for (size_t i = 0; i < cb; ++i) bwdTypes.push_back(types[n + cp + cf + i]);
    bwdTypes.insert(bwdTypes.end(), results.begin(), results.end());
    Function* bwdW = buildFunction(m, freshName(m, "custom_vjp_bwd"), bwdTypes, [&](Builder& b, const std::vector<Value*>& x) {
      const size_t nr = residuals.size();
      std::vector<Value*> out = b.call(*g.function, joined(joined(slice(x, 0, nr), slice(x, nr + cb, results.size())),
                                                            slice(x, nr, cb)));
      for (size_t i = n; i < types.size(); ++i) out.push_back(b.splat(types[i], 0));  // captures: constants
      return out;
    }, Visibility::Private);
    t.builder->setLocation(locationOf(site));
    return t.tracersOf(t.builder->customVjp(*primalW, *fwdW, *bwdW, t.valuesOf(operands)));
  });
}

std::vector<Array> checkpointCall(const FlatFn& f, const std::vector<Array>& args, const std::string& policy,
                                  const std::source_location& site) {
  return translated([&] {
    if (policy != "nothing_saveable" && policy != "dots_saveable" && policy != "everything_saveable")
      throw Error(ErrorKind::Usage, "checkpoint: unknown policy '" + policy +
                                        "' (nothing_saveable, dots_saveable or everything_saveable)");
    TraceState& t = enclosing("checkpoint");
    // Captures are ordinary operands here: the region is differentiated like any code.
    TracedPiece p = tracePiece(*t.module, "checkpointed", f, specsOf(args));
    t.builder->setLocation(locationOf(site));
    std::vector<Value*> out = t.builder->checkpoint(
        t.valuesOf(concat(args, p.captures)), policy,
        [&](Builder& b, const std::vector<Value*>& x) { return b.call(*p.function, x); });
    return t.tracersOf(out);
  });
}

}  // namespace kiln::detail
