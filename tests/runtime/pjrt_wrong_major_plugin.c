/* A PJRT plugin of another major version: its table holds only its version. A client
   must refuse it, naming both versions, without calling anything else in it.
   Built with KILN_NO_ENTRY_POINT, the same library exports its function under another
   name: a shared library that is no PJRT plugin at all. */
#include "kiln/pjrt/c_api.h"

#ifdef KILN_NO_ENTRY_POINT
#define ENTRY_POINT GetSomethingElse
#else
#define ENTRY_POINT GetPjrtApi
#endif

__attribute__((visibility("default"))) const PJRT_Api* ENTRY_POINT(void) {
  static PJRT_Api api;
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR + 1;
  api.pjrt_api_version.minor_version = 3;
  return &api;
}
