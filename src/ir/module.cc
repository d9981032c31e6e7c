// Function and Module bookkeeping.
#include "ir/module.h"

#include <algorithm>

#include "support/error.h"

namespace kiln {

Function::Function(std::string name, const TypeList& paramTypes, TypeList resultTypes)
    : name_(std::move(name)), resultTypes_(std::move(resultTypes)) {
  body_.parentFunction_ = this;
  for (const Type& t : paramTypes) body_.addArgument(t);
  argAttrs.resize(paramTypes.size());
  argLocs.resize(paramTypes.size());
  resultAttrs.resize(resultTypes_.size());
}

Value* Function::addParam(const Type& type) {
  argAttrs.emplace_back();
  argLocs.emplace_back();
  return body_.addArgument(type);
}

TypeList Function::paramTypes() const {
  TypeList types;
  for (size_t i = 0; i < numParams(); ++i) types.push_back(param(i)->type());
  return types;
}

void Function::setResultTypes(TypeList types) {
  resultTypes_ = std::move(types);
  resultAttrs.resize(resultTypes_.size());
}

std::unique_ptr<Function> Function::clone(std::string newName) const {
  auto copy = std::make_unique<Function>(std::move(newName), paramTypes(), resultTypes_);
  copy->visibility = visibility;
  copy->attrs = attrs;
  copy->argAttrs = argAttrs;
  copy->resultAttrs = resultAttrs;
  copy->argLocs = argLocs;
  copy->loc = loc;
  copy->pos = pos;
  ValueMap map;
  for (size_t i = 0; i < numParams(); ++i) map[param(i)] = copy->param(i);
  for (const auto& op : body_.ops()) copy->body_.push_back(op->clone(map));
  return copy;
}

Function* Module::addFunction(std::unique_ptr<Function> fn) {
  functions_.push_back(std::move(fn));
  return functions_.back().get();
}

Function* Module::lookup(std::string_view fnName) const {
  for (const auto& fn : functions_)
    if (fn->name() == fnName) return fn.get();
  return nullptr;
}

void Module::eraseFunction(Function* fn) {
  auto it = std::find_if(functions_.begin(), functions_.end(),
                         [fn](const auto& f) { return f.get() == fn; });
  if (it == functions_.end()) throw Error(ErrorKind::Internal, "function is not in this module");
  functions_.erase(it);
}

const DeviceMesh* Module::findMesh(std::string_view meshName) const {
  for (const NamedMesh& m : meshes)
    if (m.name == meshName) return &m.mesh;
  return nullptr;
}

}  // namespace kiln
