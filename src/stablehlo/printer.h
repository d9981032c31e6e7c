// Printing IR as StableHLO MLIR text, in the pretty form where an op has one. The
// parser reads the output back to an identical module. Constants that came from
// dense_resource blobs print as dense literals (resource_blobs.cc says why); elided ones
// as dense_resource<__elided__> again.
#pragma once

#include <ostream>
#include <string>

#include "ir/module.h"

namespace kiln::stablehlo {

struct PrintOptions {
  bool locations = true;   // print loc(...) for ops that carry a user location
  bool generic = false;    // print every op in the generic form
  int64_t hexThreshold = 100;  // non-splat literals with more elements print as "0x..."
};

std::string printModule(const Module& module, const PrintOptions& options = {});
void printModule(const Module& module, std::ostream& out, const PrintOptions& options = {});

// One op (with its regions) as text, values named locally; for messages and tests.
std::string printOp(const Op& op, const PrintOptions& options = {});

// Attributes in their full form: `3 : i32`, `array<i64: 1, 2>`, `#stablehlo<...>`.
std::string printAttribute(const Attribute& attr);

// A float of type `t` as MLIR prints it: `1.000000e+00` when six digits give the same
// value back, else the shortest exact form, and hex bits for inf and NaN.
std::string printFloat(double value, DType t);

}  // namespace kiln::stablehlo
