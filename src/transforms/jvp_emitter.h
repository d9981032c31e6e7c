// The forward-mode engine: copies a region's ops into a builder's region and emits each
// op's tangent beside it. jvp() drives it over a function; the rules of ops with regions
// (loops, conditionals) will drive it over their bodies.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/builder.h"
#include "ir/module.h"

namespace kiln::transforms {

class JvpEmitter {
 public:
  // `linearizing`: the program is for vjp, which transposes its linear part. Then a
  // custom_vjp's tangent is a kiln.custom_lin, transposed by its bwd function; forward
  // mode alone has no tangent for it (JAX's custom_vjp has no jvp either).
  JvpEmitter(Builder& b, const Module* module, bool linearizing = false)
      : b_(b), module_(module), linearizing_(linearizing) {}
  // An emitter for a nested region built by `b`: values it has not mapped (those the
  // region captures from outside) are looked up in `parent`.
  JvpEmitter(Builder& b, const JvpEmitter& parent)
      : b_(b), module_(parent.module_), linearizing_(parent.linearizing_), parent_(&parent) {}

  const Module* module() const { return module_; }
  bool linearizing() const { return linearizing_; }

  // Where an original value's primal is in the new program, and its tangent (null: zero).
  void mapPrimal(const Value* original, Value* primal) { primal_[original] = primal; }
  void setTangent(const Value* original, Value* tangent) {
    if (tangent) tangents_[original] = tangent;
    else tangents_.erase(original);
  }
  Value* primalOf(Value* original) const;
  Value* tangentOf(const Value* original) const;
  std::vector<Value*> primals(const std::vector<Value*>& originals) const;

  // Emits the ops of `region` (up to its terminator) with their tangents.
  void emitRegion(const Region& region);
  // Emits `callee`'s body on the primals `args`, without tangents (calls in it inlined,
  // as everywhere in a jvp program), and returns what it returns: how the rules of the
  // custom-derivative ops run their rule functions.
  std::vector<Value*> emitInlined(const Function& callee, const std::vector<Value*>& args);

 private:
  void emitOp(const Op& op);
  void emitCall(const Op& call);

  Builder& b_;
  const Module* module_;
  bool linearizing_ = false;
  const JvpEmitter* parent_ = nullptr;
  ValueMap primal_;
  std::unordered_map<const Value*, Value*> tangents_;
};

// jvp's function, not yet added to the module (vjp transposes it and drops it; it
// passes `linearizing`).
std::unique_ptr<Function> jvpFunction(const Module& module, const Function& f, const std::string& name,
                                      bool linearizing = false);

}  // namespace kiln::transforms
