// Automatic differentiation of IR functions: jvp (forward mode), vjp (reverse mode) and
// grad, each building a new function in the same module, so they compose (grad of grad,
// jvp of vjp) and apply alike to traced and imported programs.
//
// Only floating-point and complex parameters and results (and tuples holding one) have
// tangents; integer and boolean ones are left out of the tangent lists (JAX gives them
// float0 tangents).
// Calls are inlined as they are differentiated; the result is a plain StableHLO
// function that the optimizer cleans up (DCE drops what the gradient does not need).
//
// Errors: an op without a rule throws kind Unsupported, "unsupported: jvp of
// stablehlo.while (line 12)"; bad requests (a parameter that is not differentiable, a
// non-scalar output under grad) throw kind Usage.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"

namespace kiln::transforms {

// @name(primals..., tangents of the differentiable params...) ->
//   (results..., tangents of the differentiable results...)
Function& jvp(Module& module, const Function& f, const std::string& name);

// @name(primals..., cotangents of the differentiable results...) ->
//   (results..., cotangents of the differentiable params...)
// Built from the jvp: its primal part is kept, its tangent part (linear in the
// tangents) is transposed backwards.
Function& vjp(Module& module, const Function& f, const std::string& name);

struct GradOptions {
  std::vector<size_t> wrt = {0};  // which parameters (each differentiable)
  bool withValue = false;         // return the value first, as value_and_grad
};
// @name(params...) -> ([value,] gradients w.r.t. wrt...): f returns one float scalar.
Function& grad(Module& module, const Function& f, const GradOptions& options, const std::string& name);

// Whether values of this type have tangents (floating-point and complex tensors, and
// tuples holding one).
bool hasTangent(const Type& type);

}  // namespace kiln::transforms
