// Constants whose data the exporter left out: JAX writes `dense_resource<__elided__>`
// for the weights of a program it prints without them. The parser reads such a constant
// as zeros of its type marked with kElidedAttr, so the program still has every op and
// type; nothing may run it as it is (rejectElidedConstants), and `--fill-elided SEED`
// replaces the data with seeded random values (passes/fill_elided_constants.h).
#pragma once

#include <string_view>

#include "ir/module.h"

namespace kiln {

// The discardable attribute that marks an elided constant.
inline constexpr std::string_view kElidedAttr = "kiln.elided";

bool isElidedConstant(const Op& op);

// The first elided constant in program order (nested regions included), or null.
const Op* findElidedConstant(const Module& module);

// Throws a Runtime error that names the first elided constant (its position and
// location) and says how to run the program anyway; does nothing when there is none.
void rejectElidedConstants(const Module& module);

}  // namespace kiln
