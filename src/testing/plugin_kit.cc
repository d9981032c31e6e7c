// The names and sizes of kiln's C API's codes, for the conformance kit's messages.
#include "testing/plugin_kit.h"

namespace kiln::testing::plugin_kit {

const char* codeName(int code) {
  switch (code) {
    case KILN_ERROR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case KILN_ERROR_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case KILN_ERROR_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case KILN_ERROR_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case KILN_ERROR_IO: return "IO";
    case KILN_ERROR_RUNTIME: return "RUNTIME";
    case KILN_ERROR_INTERNAL: return "INTERNAL";
    case KILN_ERROR_UNKNOWN: return "UNKNOWN";
    case KILN_ERROR_CANCELLED: return "CANCELLED";
    default: return "(not a KilnErrorCode)";
  }
}

// The element size of each KilnDType (PRED: one byte).
size_t elementSize(KilnDType t) {
  switch (t) {
    case KILN_DTYPE_PRED:
    case KILN_DTYPE_S8:
    case KILN_DTYPE_U8: return 1;
    case KILN_DTYPE_S16:
    case KILN_DTYPE_U16:
    case KILN_DTYPE_F16:
    case KILN_DTYPE_BF16: return 2;
    case KILN_DTYPE_S32:
    case KILN_DTYPE_U32:
    case KILN_DTYPE_F32: return 4;
    case KILN_DTYPE_S64:
    case KILN_DTYPE_U64:
    case KILN_DTYPE_F64:
    case KILN_DTYPE_C64: return 8;
    case KILN_DTYPE_C128: return 16;
    default: return 0;
  }
}

}  // namespace kiln::testing::plugin_kit
