// libFuzzer target for the StableHLO parser and printer. Any input may be rejected with
// a kiln::Error; anything else (a crash, a sanitizer report, another exception, a hang)
// is a bug, and so is accepted input whose printed form does not read back to itself.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "stablehlo/round_trip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  kiln::stablehlo::RoundTripResult r =
      kiln::stablehlo::checkRoundTrip(kiln::SourceBuffer::fromString("fuzz.mlir", std::move(text)));
  if (r.status == kiln::stablehlo::RoundTripResult::Status::Mismatch) {
    std::fprintf(stderr, "%s\n", r.message.c_str());
    std::abort();
  }
  return 0;
}
