// libFuzzer target for the .npy reader: any bytes may be refused with a kiln::Error;
// anything else (a crash, a sanitizer report, another exception, a hang) is a bug, and so
// is an accepted file that does not write back to the same value.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "stablehlo/npy.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  kiln::Literal value;
  try {
    value = kiln::stablehlo::parseNpy(bytes, "fuzz.npy");
  } catch (const kiln::Error&) {
    return 0;
  }
  kiln::Literal again = kiln::stablehlo::parseNpy(kiln::stablehlo::serializeNpy(value), "written.npy");
  const size_t bytesOf = static_cast<size_t>(value.type().byteSize());
  if (again.type() != value.type() ||
      (bytesOf > 0 && std::memcmp(again.storage(), value.storage(), bytesOf) != 0)) {
    std::fprintf(stderr, "a .npy file of %s does not write back to itself\n", value.type().str().c_str());
    std::abort();
  }
  return 0;
}
