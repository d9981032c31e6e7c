// Random programs for differential testing (`kiln fuzz`, testing/differential.h): from a
// seed, a verifier-clean module whose @main takes one to three parameters of random
// shapes (dimensions of size 0 and 1 included) and dtypes (complex too) and runs a chain
// of random ops on them: elementwise ops of the registry (each op chosen among those that
// accept the value's element type, ir/op_registry.h) and transcendental math, compare and
// select, conversions, broadcasts, reshapes, transposes, reverses, slices,
// concatenations, pads, reductions, iota, dot_general, convolution, gather and scatter,
// sort, and while loops and ifs. Every op is built through the typed builder, so a
// program is valid by construction; an op that does not fit is drawn again.
//
// The programs stay inside what the spec defines — no integer division or remainder
// (a zero divisor), no float-to-integer conversions (out of range), scatters to distinct
// indices only (no order between updates), stable sorts — and inside what a tolerance
// can compare: values that carry rounding the executors may do differently
// (transcendental math, float dots and convolutions) never reach an op that jumps (a
// comparison, floor, sign, remainder, a sort that carries other values), and meet the
// edges of log, sqrt, a divisor or exp only tamed (|v| + 1/2, or clamped).
#pragma once

#include <cstdint>
#include <memory>
#include <random>

#include "interp/host_value.h"
#include "ir/module.h"

namespace kiln::testing {

struct GeneratorOptions {
  int maxOps = 10;        // ops drawn after the parameters (constants not counted)
  int maxRank = 3;
  int64_t maxDim = 5;
};

std::unique_ptr<Module> generateProgram(uint64_t seed, const GeneratorOptions& options = {});

// Seeded inputs for `fn`'s parameters: floats in [-4, 4] with a few exact zeros, ones,
// and halves; integers in [-8, 8] (unsigned [0, 16]); booleans half true.
interp::HostValues generateInputs(const Function& fn, uint64_t seed);

}  // namespace kiln::testing
