/* A PJRT plugin of another major version: its table holds only its version. A client
   must refuse it, naming both versions, without calling anything else in it. */
#include "kiln/pjrt/c_api.h"

__attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  static PJRT_Api api;
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR + 1;
  api.pjrt_api_version.minor_version = 3;
  return &api;
}
