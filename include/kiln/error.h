// The exception every function of kiln's public C++ API throws. This header needs
// nothing but the standard library.
#pragma once

#include <stdexcept>
#include <string>

namespace kiln {

// What every public function throws. what() is the full diagnostic a user can act on
// (`file:line:col: error: ...`, the line and a caret, where the position is known);
// kind() names what went wrong: "parse", "verify", "shape", "type", "unsupported", "io",
// "usage" (the caller asked for something that does not exist, such as an unknown
// function or pass), "runtime" (a failure while running, including a failed check),
// "resource exhausted" (out of memory, or over a configured memory limit) or "internal"
// (a bug in kiln).
class ApiError : public std::runtime_error {
 public:
  ApiError(std::string kind, const std::string& diagnostic)
      : std::runtime_error(diagnostic), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

}  // namespace kiln
