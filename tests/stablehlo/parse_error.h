// What the stablehlo tests ask of a parse that should fail: its formatted error.
#pragma once

#include <string>

#include "stablehlo/parser.h"
#include "support/error.h"
#include "support/source.h"

namespace kiln::stablehlo::test_util {

// The error that parsing `text`, read as the file `file`, reports; "no error" if none.
inline std::string parseErrorOf(const std::string& text, const std::string& file = "<string>") {
  try {
    parseModule(SourceBuffer::fromString(file, text));
  } catch (const Error& e) {
    return e.format();
  }
  return "no error";
}

}  // namespace kiln::stablehlo::test_util
