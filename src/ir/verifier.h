// The verifier: checks that a module obeys the invariants of the StableHLO spec
// (../shared/reference/stablehlo-spec.md) — operand/result/region counts, attribute
// kinds, and each op's shape and type constraints (C1, C2, ... in the spec).
#pragma once

#include <vector>

#include "ir/module.h"
#include "support/error.h"

namespace kiln {

// Throws kiln::Error (kind Verify) for the first violation, positioned at the op's text
// (when parsed) and naming the op and, where known, the user's source location.
void verifyModule(const Module& module);

// Every violation found, as formatted diagnostics (for tools and tests).
std::vector<Error> verifyModuleAll(const Module& module);

}  // namespace kiln
