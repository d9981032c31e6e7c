// Differential testing: a program runs on the reference interpreter, on the interpreter
// after the optimizer's default pipeline, and on the cpu backend, and every executor must
// give the reference's bits (a NaN matches any NaN: payloads are not specified). A
// program whose results disagree is minimized — ops dropped, each replaced by an operand
// of its type or a constant, while the disagreement stays — and kept as a reproducer.
// `kiln fuzz` drives it over random programs (program_generator.h).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "interp/host_value.h"
#include "ir/module.h"

namespace kiln::testing {

// The first executor that disagrees with the reference on `program`'s @main (given as
// text: each executor parses its own copy), and how: "cpu: result 0 element 3: 1.5 vs
// 2.5", or "cpu threw: …". Nothing when all agree, and nothing when the reference itself
// throws (such a program tests nothing).
std::optional<std::string> disagreement(const std::string& program, const interp::HostValues& inputs);

// Where two executors' results differ, or nothing (bitwise, NaN as any NaN).
std::optional<std::string> firstDifference(const interp::HostValues& expected, const interp::HostValues& got);

// The smallest program found by dropping ops from `program`'s @main while `stillFails`
// holds for the candidate's text (it holds for `program`).
std::string minimize(const std::string& program, const std::function<bool(const std::string&)>& stillFails);

}  // namespace kiln::testing
