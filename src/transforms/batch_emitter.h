// vmap's engine: copies a region op by op, each op that sees a batched value replaced by
// its batching rule (transforms/op_rules.h: batched values carry the batch dimension in
// front), the others copied as they are. vmap() drives it over a function; the rules of
// ops with regions drive nested ones over their bodies (values a body captures are
// looked up in the enclosing emitter).
#pragma once

#include <unordered_set>

#include "ir/builder.h"
#include "ir/module.h"

namespace kiln::transforms {

class BatchEmitter {
 public:
  BatchEmitter(Builder& b, Module* module, int64_t size, const BatchEmitter* parent = nullptr)
      : b_(b), module_(module), size_(size), parent_(parent) {}

  int64_t size() const { return size_; }
  // Mutable: the rules of the custom-derivative ops add the batched rule functions.
  Module* module() const { return module_; }
  void map(const Value* original, Value* value, bool batched);
  Value* valueOf(Value* v) const;
  bool isBatched(const Value* v) const;
  // Emits the ops of `region` up to its terminator.
  void emitRegion(const Region& region);

 private:
  void emitOp(const Op& op);
  void emitCall(const Op& call);

  Builder& b_;
  Module* module_;
  int64_t size_;
  const BatchEmitter* parent_;
  ValueMap values_;
  std::unordered_set<const Value*> batched_;
};

}  // namespace kiln::transforms
