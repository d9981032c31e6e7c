// Random programs for differential testing (`kiln fuzz`, testing/differential.h): from a
// seed, a verifier-clean module whose @main takes one to three parameters of random
// shapes (dimensions of size 0 and 1 included) and dtypes and runs a chain of random ops
// on them: elementwise ops of the registry (each op chosen among those that accept the
// value's element type, ir/op_registry.h), compare and select, conversions, broadcasts,
// reshapes, transposes, reverses, slices, concatenations, pads, reductions, iota and
// integer dot_generals. Every op is built through the typed builder, so a program is
// valid by construction; an op that does not fit is drawn again.
//
// The programs stay inside what every executor computes bit for bit (the interpreter, the
// optimizer's rewrites, the cpu backend): no inline transcendental math or float dots,
// whose last bits the backends may round differently, no integer division or remainder
// (undefined for a zero divisor), no float-to-integer conversions (undefined out of
// range). Those ops need tolerance-based comparison, which is not built yet.
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
