// How every PJRT function of kiln's plugins handles its args struct and its failures: as
// kiln's own C API does (runtime/api_call.h), with PJRT's error objects and codes.
#pragma once

#include <string>

#include "kiln/pjrt/c_api.h"
#include "runtime/api_call.h"

namespace kiln::runtime::pjrt {

// An error object the caller destroys (through its table, or PJRT_Error_Destroy).
PJRT_Error* pjrtError(const Failure& failure);
PJRT_Error_Code codeOf(KilnErrorCode code);

template <class Args, class Body>
PJRT_Error* call(const char* fn, Args* args, Body&& body) {
  return guardedCall(fn, args, std::forward<Body>(body), pjrtError);
}

// Throws the failure an error object of kiln's own C API reports (destroying it).
void check(KilnError* error);

// A string the callee owns, returned as PJRT returns strings: a pointer and a size.
inline void setString(const std::string& text, const char*& data, size_t& size) {
  data = text.data();
  size = text.size();
}

}  // namespace kiln::runtime::pjrt
