// Automatic differentiation of IR functions: jvp (forward mode), vjp (reverse mode) and
// grad, each building a new function in the same module, so they compose (grad of grad,
// jvp of vjp) and apply alike to traced and imported programs.
//
// Only floating-point and complex parameters and results (and tuples holding one) have
// tangents; integer and boolean ones are left out of the tangent lists (JAX gives them
// float0 tangents).
// Calls are inlined as they are differentiated; the result is a plain StableHLO
// function that the optimizer cleans up (DCE drops what the gradient does not need).
// kiln's autodiff constructs say what to do instead of differentiating an op:
// stop_gradient (zero tangent), custom_jvp and custom_vjp (the user's rule functions:
// rules/custom_derivatives.cc) and checkpoint (recompute a region's residuals in the
// backward pass: rules/checkpoint.cc). The transforms consume them; executors and the
// optimizer see only what they wrap.
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

// What reverse mode keeps from the forward computation for the backward one (the
// meaning of jax.checkpoint's policies): everything it needs (None), only the
// parameters (All: recompute the rest), or the parameters and the outputs of dots and
// convolutions (Dots). Recomputed values start from an optimization_barrier, so that
// CSE cannot merge them back into the forward computation.
enum class Remat { None, All, Dots };

struct VjpOptions {
  // Reverse mode stores a loop's carries for every iteration. A loop whose trip count is
  // not known when the program is built (JAX refuses these) is reversed when this bounds
  // it: its carries go into buffers of this many iterations, and a run that iterates more
  // fails (JAX's shape_assertion) rather than answer wrongly. 0: no bound.
  int64_t loopBound = 0;
  Remat remat = Remat::None;
};

// @name(primals..., cotangents of the differentiable results...) ->
//   (results..., cotangents of the differentiable params...)
// Built from the jvp: its primal part is kept, its tangent part (linear in the
// tangents) is transposed backwards.
Function& vjp(Module& module, const Function& f, const std::string& name, const VjpOptions& options = {});

struct GradOptions {
  std::vector<size_t> wrt = {0};  // which parameters (each differentiable)
  bool withValue = false;         // return the value first, as value_and_grad
  // JAX's has_aux: f returns the loss, then auxiliary outputs, which come back after the
  // gradients as f computed them and are not differentiated (no work for their
  // cotangents).
  bool hasAux = false;
  VjpOptions vjp;
};
// @name(params...) -> ([value,] gradients w.r.t. wrt..., [aux...]): f returns one float
// scalar (then, with hasAux, its auxiliary outputs).
Function& grad(Module& module, const Function& f, const GradOptions& options, const std::string& name);

// Whether values of this type have tangents (floating-point and complex tensors, and
// tuples holding one).
bool hasTangent(const Type& type);

}  // namespace kiln::transforms
