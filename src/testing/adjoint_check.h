// The exact consistency of reverse mode with forward mode on any program: for random
// tangents v and cotangents u, <u, J·v> (from the jvp) must equal <Jᵀ·u, v> (from the
// vjp) up to f64 rounding, whatever J is. It holds at kinks and ties too, as long as both
// modes pick the same side, so it needs no smooth points and no finite differences. The
// lifted conformance test and `kiln fuzz` run it.
#pragma once

#include <string>

#include "interp/host_value.h"
#include "ir/module.h"
#include "transforms/autodiff.h"

namespace kiln::testing {

struct AdjointCheck {
  enum class Outcome { Consistent, Inconsistent, Skipped };
  Outcome outcome = Outcome::Skipped;
  std::string message;  // "<u,Jv> = ..., <J^T u,v> = ..." when inconsistent; why when skipped
};

// Checks `fnName` of `module` at `inputs` (given at the function's parameter types): the
// module's floats are promoted to f64 first (transforms/promote_floats.h) and its jvp and
// vjp added to it, so pass a copy you can spare. Skipped when no parameter or result has
// a tangent, when a reduce_precision rounds below f64 (rounding is not linear), or when
// the derivatives are not finite at `inputs`. The transforms' errors (an op without a
// rule: "unsupported: ...") propagate.
AdjointCheck checkAdjoint(Module& module, const std::string& fnName, const interp::HostValues& inputs, uint64_t seed,
                          const transforms::VjpOptions& vjpOptions = {});

}  // namespace kiln::testing
