// Turns a self-contained test program (the conformance suites' `@main()`: inputs as
// constants, results compared by check ops) into a function of its inputs, so that the
// transforms can be checked on programs nobody wrote for them: calls are inlined, the
// check ops and what only they use are dropped, and every floating-point or complex
// constant left becomes a parameter, whose value is returned as that parameter's input.
#pragma once

#include <vector>

#include "ir/literal.h"
#include "ir/module.h"

namespace kiln::testing {

// Lifts `fn` (a function of `module`) in place; returns the inputs that reproduce its
// old results, one per new parameter.
std::vector<Literal> liftConstants(Module& module, Function& fn);

}  // namespace kiln::testing
