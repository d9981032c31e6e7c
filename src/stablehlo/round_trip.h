// The round-trip check: parse -> verify -> print -> parse -> print must be a fixed point.
// Used by `kiln fmt --check` and by the conformance round-trip test.
#pragma once

#include <string>

#include "support/source.h"

namespace kiln::stablehlo {

struct RoundTripResult {
  enum class Status {
    Ok,           // parsed, verified, printed, and read back to the same text
    Unsupported,  // uses a feature kiln reports as unsupported
    Error,        // the input is not valid (parse or verify error)
    Mismatch,     // a kiln bug: the printed text does not read back to itself
  } status = Status::Ok;
  std::string message;  // the formatted error, or what differed
  size_t modules = 0;   // modules in the file (parts split by `// -----`)
};

RoundTripResult checkRoundTrip(const SourceRef& source);

}  // namespace kiln::stablehlo
