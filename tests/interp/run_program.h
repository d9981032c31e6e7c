// Helpers for interpreter tests: run @main of a program text, read results as vectors.
#pragma once

#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "stablehlo/parser.h"

namespace kiln::interp::testing {

// Parses `text` and runs its @main with no arguments, failing after `seconds`.
inline HostValues run(const std::string& text, double seconds = 60) {
  auto module = stablehlo::parseModule(text);
  InterpOptions options;
  options.deadline = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  Interpreter interp(*module, options);
  return interp.call("main", {});
}

inline std::vector<int64_t> ints(const HostValue& v) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < v.tensor().numElements(); ++i) out.push_back(v.tensor().intAt(i));
  return out;
}

inline std::vector<double> floats(const HostValue& v) {
  std::vector<double> out;
  for (int64_t i = 0; i < v.tensor().numElements(); ++i) out.push_back(v.tensor().floatAt(i));
  return out;
}

inline std::vector<uint64_t> bits(const HostValue& v) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < v.tensor().numElements(); ++i) out.push_back(v.tensor().bitsAt(i));
  return out;
}

}  // namespace kiln::interp::testing
