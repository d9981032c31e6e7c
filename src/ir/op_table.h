// One table per layer: an entry per opcode, sized from the registry, so an op added to
// ir/ops/ has a slot in every layer's table (verifier rules, interpreter kernels, simplify
// rules; later codegen, jvp/vjp and batching rules) and the completeness tests see it.
#pragma once

#include <vector>

#include "ir/op_registry.h"

namespace kiln {

template <class T>
class OpTable {
 public:
  OpTable() : entries_(allOps().size()) {}
  T& operator[](OpCode code) { return entries_[static_cast<size_t>(code)]; }
  const T& operator[](OpCode code) const { return entries_[static_cast<size_t>(code)]; }
  size_t size() const { return entries_.size(); }

 private:
  std::vector<T> entries_;
};

}  // namespace kiln
