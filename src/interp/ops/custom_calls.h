// The custom_call targets the interpreter can run, each implemented where its kind of
// work lives; custom_call.cc dispatches on the target name.
#pragma once

#include "interp/kernels.h"

namespace kiln::interp {

// @check.expect_eq / expect_almost_eq / expect_close (operand 0 actual, 1 expected),
// with the reference checker's fixed tolerances for the custom_call form (checks.cc).
HostValues customCallCheck(const Op& op, OpCode check, const HostValues& operands);

// @ProductOfElementaryHouseholderReflectors(a, taus) (solve.cc).
HostValues householderProductKernel(const Op& op, const HostValues& operands, EvalContext& ctx);

}  // namespace kiln::interp
