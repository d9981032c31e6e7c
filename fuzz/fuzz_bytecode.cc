// libFuzzer target for the MLIR bytecode reader (stablehlo/bytecode.h: the container, its
// types, attributes and IR, and the module read from them): any bytes may be refused with a kiln::Error (a Parse error); anything else (a crash, a
// sanitizer report, another exception, a hang) is a bug.
#include <cstdint>
#include <string_view>

#include "stablehlo/bytecode.h"
#include "stablehlo/bytecode_attributes.h"
#include "stablehlo/bytecode_ir.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const kiln::stablehlo::bytecode::Container c = kiln::stablehlo::bytecode::readContainer(bytes, "fuzz.mlirbc");
    kiln::stablehlo::bytecode::TypeTable types(c, "fuzz.mlirbc");
    kiln::stablehlo::bytecode::AttributeTable attributes(c, types, "fuzz.mlirbc");
    for (size_t i = 0; i < types.size(); ++i) {
      try {
        types.at(i);
      } catch (const kiln::Error&) {
      }
    }
    for (size_t i = 0; i < attributes.size(); ++i) {
      try {
        attributes.at(i);
      } catch (const kiln::Error&) {
      }
    }
    kiln::stablehlo::bytecode::readIr(c, "fuzz.mlirbc");
  } catch (const kiln::Error&) {
  }
  try {
    kiln::stablehlo::parseBytecode(bytes, "fuzz.mlirbc");
  } catch (const kiln::Error&) {
  }
  return 0;
}
