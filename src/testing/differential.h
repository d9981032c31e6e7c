// Differential testing: a program runs on the reference interpreter, on the interpreter
// after the optimizer's default pipeline, and through the interp and cpu plugins of the
// runtime (its C API, as every layer above the runtime reaches a backend; the cpu plugin
// once more with every argument donated), and every executor must
// give the reference's bits (a NaN matches any NaN: payloads are not specified) — or,
// where the program has ops whose last bits the spec leaves to the executor, its floats
// within a tolerance derived from those ops. Then its jvp and vjp must be consistent
// (adjoint_check.h). A program that fails either is minimized — ops dropped, each
// replaced by an operand of its type or a constant, while the failure stays — and kept
// as a reproducer. `kiln fuzz` drives it over random programs (program_generator.h).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "interp/host_value.h"
#include "ir/module.h"

namespace kiln::testing {

// The first executor that disagrees with the reference on `program`'s @main (given as
// text: each executor parses its own copy), and how: "cpu plugin: result 0 element 3:
// 1.5 instead of 2.5", or "cpu plugin threw: …"; or, when all agree, an inconsistency of its derivatives
// ("jvp/vjp: <u,Jv> = …"). Nothing when all hold, and nothing when the reference
// itself throws (such a program tests nothing).
std::optional<std::string> disagreement(const std::string& program, const interp::HostValues& inputs);

// How far apart two executors' float results may be on `module`, relative to their
// magnitude (or 1, if smaller): 0 (bit for bit) unless the module has ops that each
// executor may round its own way (the registry's roundsFreely: transcendental math, float
// and complex dots and convolutions, whose sums the executors order and block
// differently), and then a few bits of its narrowest float format per such op.
double tolerance(const Module& module);

// Where two executors' results differ, or nothing: bitwise (NaN as any NaN), or for
// floats and complex numbers within `tolerance` as above.
std::optional<std::string> firstDifference(const interp::HostValues& expected, const interp::HostValues& got,
                                           double tolerance = 0);

// The smallest program found by dropping ops from `program`'s @main while `stillFails`
// holds for the candidate's text (it holds for `program`).
std::string minimize(const std::string& program, const std::function<bool(const std::string&)>& stillFails);

}  // namespace kiln::testing
