// Test support: a small sample program per op of the op registry, for the cpu backend's tests.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace kiln::cpu::test_util {

// A program per op (its full registry name) whose @main computes with the op and returns
// what it computes, on 0 to 3 small parameters. Every op of stablehlo.def and compiler.def
// has one, except the terminators (func.return, stablehlo.return) and the plain
// elementwise ops whose operands and result share one type (abs, add, ..., xor).
const std::map<std::string_view, std::string>& opSamples();

}  // namespace kiln::cpu::test_util
