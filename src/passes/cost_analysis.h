// What a function costs, counted from its ops: the floating-point (or integer) operations
// it does and the bytes it must at least move (its parameters read once, its results
// written once). `kiln bench` divides these by the run time; the runtime's executable
// introspection will report them too.
#pragma once

#include "ir/module.h"

namespace kiln::passes {

struct Cost {
  double flops = 0;  // dot_general/dot/convolution: 2 per multiply-add; other ops: 1 per result element (reduce: per input)
  double bytes = 0;  // parameters + results
};

// Calls count their callee's cost (looked up in `module`) once per call site.
Cost costOf(const Module& module, const Function& fn);

// The multiply-adds one result element of a dot_general, dot or convolution sums (its
// contracting size, or its window times its kernel's input features); 1 for other ops.
int64_t productsPerElement(const Op& op);

// One op's: its flops (with its regions', a fusion's body) and the bytes of its
// operands and results (what a kernel of it moves at least).
Cost costOf(const Module& module, const Op& op);

}  // namespace kiln::passes
