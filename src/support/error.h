// kiln::Error: the one exception type of the library. It carries a kind, a message a
// user can act on and, where known, the source position it is about.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "support/source.h"

namespace kiln {

enum class ErrorKind {
  Parse,        // malformed text
  Verify,       // an IR invariant from the spec does not hold
  Shape,        // shapes that do not fit together
  Type,         // dtypes that do not fit together
  Unsupported,  // valid input that kiln does not handle (yet); message starts "unsupported: "
  Io,           // files and streams that cannot be opened, read or written
  Usage,        // the caller asked for something that does not exist or does not fit:
                // a bad command-line flag, an unknown pass or function name, a bad
                // option value (tools exit with their usage code; the C API maps it to
                // an invalid-argument code)
  Runtime,      // failures while running a program
  ResourceExhausted,  // the program needs more than a configured limit allows (memory)
  Internal,     // a bug in kiln
};

const char* errorKindName(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Error(ErrorKind kind, const std::string& message, SourceRef source, SourcePos pos)
      : std::runtime_error(message), kind_(kind), source_(std::move(source)), pos_(pos) {}

  ErrorKind kind() const { return kind_; }
  std::string message() const { return what(); }
  const SourceRef& source() const { return source_; }
  SourcePos pos() const { return pos_; }

  // Attaches a position when the error has none yet (inner code often does not know it).
  Error& at(SourceRef source, SourcePos pos);

  // `file:line:col: error: message`, then the source line and a caret under the column,
  // when the position and its text are known; otherwise `error: message`.
  std::string format() const;

 private:
  ErrorKind kind_;
  SourceRef source_;
  SourcePos pos_;
};

// Whether `message` is already a whole located diagnostic (`file:line:col: error: ...`,
// as format() writes one): what crosses the plugin C API as an error's message, which
// format() then prints as it is.
bool isLocatedDiagnostic(std::string_view message);

// Shorthand for the common "unsupported: ..." error.
[[noreturn]] void throwUnsupported(const std::string& what);

}  // namespace kiln
