#include "frontend/trace.h"

#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"

namespace kiln::detail {

namespace {

thread_local std::vector<TraceState*> traceStack;

}  // namespace

TraceState* currentTrace() { return traceStack.empty() ? nullptr : traceStack.back(); }

Location locationOf(const std::source_location& site) {
  if (site.line() == 0) return {};  // an operator: no call site to name
  return Location::file(site.file_name(), site.line(), site.column());
}

Error leakedTracerError(const ArrayImpl& impl) {
  const TraceState& t = *impl.trace;
  return Error(ErrorKind::Usage, "a tracer of " + t.name + " (" + impl.type.str() + ") was used " +
                                     (t.alive ? "in a trace it does not belong to" : "after its trace ended") +
                                     ": a traced value escaped the function being transformed (a tracer leak); "
                                     "return it from the function instead of keeping it");
}

std::vector<Value*> TraceState::valuesOf(const std::vector<Array>& arrays) {
  std::vector<Value*> out;
  for (const Array& a : arrays) out.push_back(valueOf(a));
  return out;
}

std::vector<Array> TraceState::tracersOf(const std::vector<Value*>& values) {
  std::vector<Array> out;
  for (Value* v : values) out.push_back(makeTracer(shared_from_this(), v));
  return out;
}

std::vector<Value*> slice(const std::vector<Value*>& v, size_t from, size_t count) {
  return {v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(from + count)};
}

std::vector<Value*> joined(std::vector<Value*> a, const std::vector<Value*>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Value* TraceState::valueOf(const Array& a) {
  ArrayImpl& impl = implOf(a);
  if (impl.trace.get() == this) return impl.value;
  if (impl.trace) {
    const TraceState& other = *impl.trace;
    bool enclosing = false;
    if (other.alive && other.level < level)
      for (const TraceState* t : traceStack) enclosing = enclosing || t == &other;
    if (!enclosing) throw leakedTracerError(impl);
  }
  // A C scalar is a constant of the program (not remembered: the array may be a
  // temporary whose address a later one reuses; CSE merges repeated constants).
  if (impl.host) return builder->constant(*impl.host);
  // Anything else from outside becomes a parameter, once; `captures` keeps the array
  // (and so its address, the key) alive as long as the trace.
  auto it = captured.find(&impl);
  if (it != captured.end()) return it->second;
  Value* v = function->addParam(impl.type);
  captures.push_back(a);
  captured.emplace(&impl, v);
  return v;
}

std::vector<ParamSpec> specsOf(const std::vector<Array>& arrays) {
  std::vector<ParamSpec> specs;
  for (const Array& a : arrays) specs.push_back({implOf(a).type, implOf(a).weak});
  return specs;
}

std::string freshName(const Module& module, const std::string& base) {
  std::string name = base;
  for (int i = 1; module.lookup(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

TraceScope::TraceScope(Module& module, const std::string& name, const std::vector<ParamSpec>& params,
                       Visibility visibility)
    : state_(std::make_shared<TraceState>()) {
  TypeList types;
  for (const ParamSpec& p : params) types.push_back(p.type);
  auto fn = std::make_unique<Function>(freshName(module, name), types, TypeList{});
  fn->visibility = visibility;
  state_->level = static_cast<int>(traceStack.size()) + 1;
  state_->name = name;
  state_->module = &module;
  state_->function = module.addFunction(std::move(fn));
  state_->builder = std::make_unique<Builder>(state_->function->body(), &module);
  state_->numInputs = params.size();
  for (size_t i = 0; i < params.size(); ++i)
    inputs_.push_back(makeTracer(state_, state_->function->param(i), params[i].weak));
  traceStack.push_back(state_.get());
}

TraceScope::~TraceScope() {
  state_->alive = false;
  // Scopes close in the order they opened (they live on the stack of the code that
  // opens them), so this is the innermost.
  if (!traceStack.empty() && traceStack.back() == state_.get()) traceStack.pop_back();
}

Function& TraceScope::finish(const std::vector<Array>& outputs) {
  std::vector<Value*> values;
  for (const Array& a : outputs) values.push_back(state_->valueOf(a));
  TypeList types;
  for (Value* v : values) types.push_back(v->type());
  state_->function->setResultTypes(types);
  state_->builder->ret(values, ops::FuncReturn);
  return *state_->function;
}

}  // namespace kiln::detail
