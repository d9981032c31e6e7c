// Functions and modules: the top of the IR.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ir/sharding.h"

namespace kiln {

enum class Visibility : uint8_t { Public, Private, Nested };

class Function {
 public:
  Function(std::string name, const TypeList& paramTypes, TypeList resultTypes);
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  const std::string& name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  Region& body() { return body_; }
  const Region& body() const { return body_; }
  size_t numParams() const { return body_.numArguments(); }
  Value* param(size_t i) const { return body_.argument(i); }
  TypeList paramTypes() const;
  // Appends a parameter (with empty attributes and location), returning it.
  Value* addParam(const Type& type);
  const TypeList& resultTypes() const { return resultTypes_; }
  void setResultTypes(TypeList types);

  Visibility visibility = Visibility::Public;
  NamedAttrList attrs;                    // e.g. {jax.uses_shape_polymorphism}
  std::vector<NamedAttrList> argAttrs;    // one list per parameter (jax.buffer_donor, ...)
  std::vector<NamedAttrList> resultAttrs; // one list per result (jax.result_info, ...)
  std::vector<Location> argLocs;          // one per parameter: loc("x") from JAX
  Location loc;
  SourcePos pos;

  // A copy named `newName`.
  std::unique_ptr<Function> clone(std::string newName) const;

 private:
  std::string name_;
  Region body_;
  TypeList resultTypes_;
};

class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  std::string name;    // `module @name`; empty when the module is unnamed or implicit
  NamedAttrList attrs; // mhlo.num_partitions, ...
  Location loc;
  SourceRef source;    // the text it was parsed from (for diagnostics); may be null

  // Shardy's device meshes (`sdy.mesh @name = <...>`), which sdy.sharding attributes name.
  struct NamedMesh {
    std::string name;
    DeviceMesh mesh;
  };
  std::vector<NamedMesh> meshes;
  const DeviceMesh* findMesh(std::string_view meshName) const;

  const std::vector<std::unique_ptr<Function>>& functions() const { return functions_; }
  Function* addFunction(std::unique_ptr<Function> fn);
  Function* lookup(std::string_view name) const;
  // Removes and destroys `fn` (no call may refer to it any more).
  void eraseFunction(Function* fn);

 private:
  std::vector<std::unique_ptr<Function>> functions_;
};

}  // namespace kiln
