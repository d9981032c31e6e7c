// Batching: vmap builds a function that applies `f` to every slice of its batched
// arguments at once, as one program (the batch is a dimension of every batched value, not
// a loop), in the same module, so it composes with the autodiff transforms (vmap of grad:
// per-example gradients).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"

namespace kiln::transforms {

struct VmapOptions {
  // Per parameter: the dimension of the new parameter that is the batch, or none (the
  // argument is shared by every slice). Empty: every parameter batched along 0.
  std::vector<std::optional<int64_t>> inAxes;
  // Per result: where its batch dimension goes (results that do not depend on a batched
  // argument are broadcast). Empty: every result along 0.
  std::vector<int64_t> outAxes;
  // The batch size (required: the program is built before any argument exists).
  int64_t size = 0;
};

// @name: f's parameters with the batch dimension inserted at their in_axes, returning
// f's results with it at their out_axes. Throws kind Usage for axes that do not fit and
// sizes that disagree; kind Unsupported naming the op and line for an op without a
// batching rule.
Function& vmap(Module& module, const Function& f, const VmapOptions& options, const std::string& name);

}  // namespace kiln::transforms
