// An op without a rule of its own, transformed through its registry decomposition (batch
// norm, map, the chlo ops): the decomposition is built aside on the op's own operands
// and each of its ops handed to the transform like any op of the program; then the op's
// results take what the decomposition's results became.
#pragma once

#include <vector>

#include "ir/builder.h"
#include "ir/module.h"

namespace kiln::transforms {

// False when the op has no decomposition or its decomposition declines. `emit(inner)`
// transforms one op of the decomposition, `bind(i, part)` makes result i of `op` what
// `part` became, and `forget(value)` drops what the transform kept for a value of the
// decomposition (which dies here, so its address may be reused).
template <class Emit, class Bind, class Forget>
bool throughDecomposition(const Op& op, const Module* module, Emit&& emit, Bind&& bind, Forget&& forget) {
  if (!op.info().decompose) return false;
  Region aside;
  Builder b(aside, module);
  b.setLocation(op.loc);
  std::vector<Value*> parts = op.info().decompose(b, op);
  if (parts.empty()) return false;
  for (const auto& inner : aside.ops()) emit(*inner);
  for (size_t i = 0; i < op.numResults(); ++i) bind(i, parts[i]);
  for (const auto& inner : aside.ops())
    for (Value* r : inner->results()) forget(r);
  return true;
}

}  // namespace kiln::transforms
