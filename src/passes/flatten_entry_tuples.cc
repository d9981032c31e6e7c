// Flattening the tuples at a public function's boundary (see the header).
#include "passes/flatten_entry_tuples.h"

#include <algorithm>
#include <set>

#include "ir/builder.h"

namespace kiln::passes {
namespace {

bool holdsTuple(const TypeList& types) {
  return std::any_of(types.begin(), types.end(), [](const Type& t) { return t.isTuple(); });
}

// The leaves of `type`, depth first.
void appendLeaves(const Type& type, TypeList& out) {
  if (!type.isTuple()) {
    out.push_back(type);
    return;
  }
  for (const Type& element : type.elements()) appendLeaves(element, out);
}

// A value of `type` built from the next leaves of `params` (tuples with stablehlo.tuple).
Value* rebuild(Builder& b, const Type& type, const std::vector<Value*>& params, size_t& next) {
  if (!type.isTuple()) return params[next++];
  std::vector<Value*> elements;
  for (const Type& element : type.elements()) elements.push_back(rebuild(b, element, params, next));
  return b.tuple(elements);
}

// The leaves of `value`, read out of its tuples with stablehlo.get_tuple_element.
void readLeaves(Builder& b, Value* value, std::vector<Value*>& out) {
  if (!value->type().isTuple()) {
    out.push_back(value);
    return;
  }
  for (size_t i = 0; i < value->type().elements().size(); ++i)
    readLeaves(b, b.getTupleElement(value, static_cast<int64_t>(i)), out);
}

// The same function with its boundary flattened; the old body's ops move into it.
std::unique_ptr<Function> flattened(Function& fn, const Module& module) {
  TypeList params, results;
  for (const Type& t : fn.paramTypes()) appendLeaves(t, params);
  for (const Type& t : fn.resultTypes()) appendLeaves(t, results);
  auto flat = std::make_unique<Function>(fn.name(), params, results);
  flat->visibility = fn.visibility;
  flat->attrs = fn.attrs;
  flat->loc = fn.loc;
  flat->pos = fn.pos;
  // Attributes and locations of the parameters and results that stay as they were.
  auto keep = [](const TypeList& types, const auto& lists, auto& out) {
    for (size_t i = 0; i < types.size(); ++i) {
      const bool known = i < lists.size();
      if (types[i].isTuple()) {
        TypeList leaves;
        appendLeaves(types[i], leaves);
        out.resize(out.size() + leaves.size());
      } else {
        out.push_back(known ? lists[i] : typename std::decay_t<decltype(out)>::value_type{});
      }
    }
  };
  keep(fn.paramTypes(), fn.argAttrs, flat->argAttrs);
  keep(fn.paramTypes(), fn.argLocs, flat->argLocs);
  keep(fn.resultTypes(), fn.resultAttrs, flat->resultAttrs);

  Builder b(flat->body(), &module);
  size_t next = 0;
  std::vector<Value*> leaves = flat->body().arguments();
  for (size_t i = 0; i < fn.numParams(); ++i) fn.param(i)->replaceAllUsesWith(rebuild(b, fn.param(i)->type(), leaves, next));
  Region& old = fn.body();
  Op* terminator = old.terminator();
  while (!old.empty() && old.front() != terminator) flat->body().push_back(old.take(old.front()));
  std::vector<Value*> outs;
  Builder end(flat->body(), &module);
  for (size_t i = 0; i < terminator->numOperands(); ++i) readLeaves(end, terminator->operand(i), outs);
  end.ret(outs, terminator->code());
  old.erase(terminator);
  return flat;
}

}  // namespace

size_t flattenEntryTuples(Module& module) {
  std::set<std::string> called;
  for (const auto& fn : module.functions())
    walk(fn->body(), [&](Op& op) {
      for (const auto& [name, attr] : op.attrs())
        if (attr.kind() == Attribute::Kind::SymbolRef) called.insert(attr.asString());
    });
  std::vector<Function*> rewrite;
  for (const auto& fn : module.functions())
    if (fn->visibility == Visibility::Public && !called.count(fn->name()) &&
        (holdsTuple(fn->paramTypes()) || holdsTuple(fn->resultTypes())))
      rewrite.push_back(fn.get());
  for (Function* fn : rewrite) {
    std::unique_ptr<Function> flat = flattened(*fn, module);
    module.eraseFunction(fn);
    module.addFunction(std::move(flat));
  }
  return rewrite.size();
}

}  // namespace kiln::passes
