// libFuzzer target for the MLIR bytecode reader (stablehlo/bytecode_container.h): any
// bytes may be refused with a kiln::Error (a Parse error); anything else (a crash, a
// sanitizer report, another exception, a hang) is a bug.
#include <cstdint>
#include <string_view>

#include "stablehlo/bytecode_container.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    kiln::stablehlo::bytecode::readContainer(bytes, "fuzz.mlirbc");
  } catch (const kiln::Error&) {
  }
  return 0;
}
