// Inlining: every func.call is replaced by a copy of the callee's body, so later passes
// see one graph per entry function. kiln's autodiff constructs are inlined alike, as what
// they run: custom_jvp and custom_vjp their primal, checkpoint its region. Their rules
// and policies are for the transforms, which run before the optimizer. Calls on a recursive cycle stay calls. An inlined op
// keeps its own location as the callee and the call's as the caller (MLIR's callsite
// form), so reports still point at the user's line. Private functions nobody refers to
// any more are removed afterwards.
#include <functional>
#include <set>
#include <unordered_map>

#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "passes/passes.h"
#include "support/error.h"

namespace kiln::passes {
namespace {

// The function an op calls when it runs (empty: none).
std::string calleeOf(const Op& op) {
  if (op.is(ops::FuncCall)) return op.attr("callee").asString();
  if (op.is(ops::CustomJvp) || op.is(ops::CustomVjp)) return op.attr("primal").asString();
  return {};
}

std::vector<Op*> callsIn(Region& region) {
  std::vector<Op*> calls;
  walk(region, [&](Op& op) {
    if (!calleeOf(op).empty() || op.is(ops::Checkpoint)) calls.push_back(&op);
  });
  return calls;
}

// Functions that can reach themselves through calls: their calls stay.
std::set<const Function*> recursiveFunctions(const Module& module) {
  std::unordered_map<const Function*, std::vector<const Function*>> callees;
  for (const auto& fn : module.functions())
    walk(fn->body(), [&](Op& op) {
      if (calleeOf(op).empty()) return;
      if (const Function* callee = module.lookup(calleeOf(op))) callees[fn.get()].push_back(callee);
    });
  std::set<const Function*> recursive;
  for (const auto& fn : module.functions()) {
    std::set<const Function*> seen;
    std::vector<const Function*> stack = callees[fn.get()];
    while (!stack.empty()) {
      const Function* f = stack.back();
      stack.pop_back();
      if (f == fn.get()) {
        recursive.insert(f);
        break;
      }
      if (seen.insert(f).second)
        for (const Function* g : callees[f]) stack.push_back(g);
    }
  }
  return recursive;
}

// Replaces `call` with a copy of `body` (its callee's, or its own region).
void inlineCall(Op& call, const Region& body) {
  Region& region = *call.parentRegion();
  ValueMap map;
  for (size_t i = 0; i < body.numArguments(); ++i) map[body.argument(i)] = call.operand(i);
  auto pos = region.positionOf(&call);
  for (const auto& op : body.ops()) {
    if (op->info().isTerminator()) {
      for (size_t r = 0; r < call.numResults(); ++r) {
        Value* value = op->operand(r);
        auto it = map.find(value);
        call.result(r)->replaceAllUsesWith(it == map.end() ? value : it->second);
      }
      break;
    }
    std::unique_ptr<Op> copy = op->clone(map);
    if (!call.loc.isUnknown()) copy->loc = op->loc.isUnknown() ? call.loc : Location::callSite(op->loc, call.loc);
    region.insert(pos, std::move(copy));
  }
  region.erase(&call);
}

// Every function symbol an attribute names (calls, run_parallel programs, composites).
void collectSymbols(const Attribute& attr, std::set<std::string>& out) {
  switch (attr.kind()) {
    case Attribute::Kind::SymbolRef: out.insert(attr.asString()); break;
    case Attribute::Kind::Array:
      for (const Attribute& a : attr.asArray()) collectSymbols(a, out);
      break;
    case Attribute::Kind::Dictionary:
    case Attribute::Kind::Record:
      for (const NamedAttribute& a : attr.fields()) collectSymbols(a.value, out);
      break;
    default: break;
  }
}

// Removes the private functions no public one reaches through symbol references. Reach,
// not mere reference: a private function named only by another removed one (or only by
// itself, recursively) is unreferenced once that one goes, and a one-pass "is it named
// anywhere" check kept such functions.
// Returns whether any function went.
bool removeUnreferencedPrivateFunctions(Module& module) {
  std::set<std::string> reached;
  std::vector<const Function*> stack;
  for (const auto& fn : module.functions())
    if (fn->visibility != Visibility::Private) {
      reached.insert(fn->name());
      stack.push_back(fn.get());
    }
  while (!stack.empty()) {
    const Function* fn = stack.back();
    stack.pop_back();
    std::set<std::string> named;
    walk(fn->body(), [&](Op& op) {
      for (const NamedAttribute& a : op.attrs()) collectSymbols(a.value, named);
    });
    for (const std::string& name : named)
      if (const Function* callee = module.lookup(name); callee && reached.insert(name).second)
        stack.push_back(callee);
  }
  std::vector<Function*> unused;
  for (const auto& fn : module.functions())
    if (!reached.count(fn->name())) unused.push_back(fn.get());
  for (Function* fn : unused) module.eraseFunction(fn);
  return !unused.empty();
}

class InlinePass : public Pass {
 public:
  std::string_view name() const override { return "inline"; }
  bool run(Module& module, PassContext&) override {
    std::set<const Function*> recursive = recursiveFunctions(module);
    bool inlined = false;
    for (const auto& fn : module.functions()) {
      // An inlined body may hold calls itself; each round inlines one level.
      for (bool changed = true; changed;) {
        changed = false;
        for (Op* call : callsIn(fn->body())) {
          if (call->is(ops::Checkpoint)) {
            // The calls collected inside its region go with it: collect again.
            inlineCall(*call, call->region(0));
            changed = true;
            break;
          }
          const Function* callee = module.lookup(calleeOf(*call));
          if (!callee || recursive.count(callee)) continue;
          inlineCall(*call, callee->body());
          changed = true;
        }
        inlined = inlined || changed;
      }
    }
    bool removed = removeUnreferencedPrivateFunctions(module);
    return inlined || removed;
  }
};

}  // namespace

std::unique_ptr<Pass> createInlinePass() { return std::make_unique<InlinePass>(); }

}  // namespace kiln::passes
