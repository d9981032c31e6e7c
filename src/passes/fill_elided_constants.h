// `--fill-elided SEED`: gives every elided constant (ir/elided_constants.h) seeded random
// data of its type, the way XLA's fake literals let a program exported without its
// weights be run and benchmarked.
#pragma once

#include <cstdint>

#include "ir/module.h"

namespace kiln::passes {

// Replaces the data of every elided constant, in program order, with values drawn from
// `seed` (the same seed and program give the same values) and drops the elided mark.
// Returns how many constants it filled.
//
// The values are meant to keep a typical network finite: floating-point constants of
// rank >= 2 (weights) are uniform with variance 1/fan-in (fan-in: the element count over
// the last dimension, as for a [in, out] or HWIO kernel), so a product keeps the scale of
// its input; constants of rank 0 or 1 (biases, scales, means, variances) are uniform in
// [0.5, 1.5), positive so that square roots and logarithms of them stay finite. Complex
// parts follow the same rule, integers are uniform in [1, 8) and booleans are fair coins.
size_t fillElidedConstants(Module& module, uint64_t seed);

}  // namespace kiln::passes
