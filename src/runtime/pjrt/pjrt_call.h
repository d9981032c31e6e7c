// How every PJRT function of kiln's plugins handles its args struct and its failures
// (runtime/api_call.h), with PJRT's error objects and codes.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <string_view>

#include "kiln/pjrt/c_api.h"
#include "runtime/api_call.h"
#include "runtime/named_values.h"
#include "runtime/pjrt/live_handles.h"

namespace kiln::runtime::pjrt {

// A handle the caller must pass: for PJRT's handles the plugin hands out, a live one (not
// destroyed already, and made by this plugin); `what` names the field for the message.
using kiln::runtime::need;
template <class T>
T& needLive(T* handle, const char* what) {
  if (!handle) invalid(std::string(what) + " is null");
  if (!isLive(handle, kindOf<std::remove_const_t<T>>()))
    invalid(std::string(what) + " is not a live handle of this plugin (destroyed already, or not made by it)");
  return *handle;
}
inline PJRT_Client& need(PJRT_Client* handle, const char* what) { return needLive(handle, what); }
inline PJRT_Buffer& need(PJRT_Buffer* handle, const char* what) { return needLive(handle, what); }
inline PJRT_Event& need(PJRT_Event* handle, const char* what) { return needLive(handle, what); }
inline PJRT_LoadedExecutable& need(PJRT_LoadedExecutable* handle, const char* what) { return needLive(handle, what); }
inline PJRT_Executable& need(PJRT_Executable* handle, const char* what) { return needLive(handle, what); }
inline const PJRT_Executable& need(const PJRT_Executable* handle, const char* what) { return needLive(handle, what); }

// Takes back a live handle the caller destroys (null: nothing, like free(NULL)); a
// destroyed one is an error.
template <class T>
std::unique_ptr<T> destroyed(T* handle, const char* what) {
  if (!handle) return nullptr;
  if (!takeBack(handle, kindOf<T>()))
    invalid(std::string(what) + " is not a live handle of this plugin (destroyed already, or not made by it)");
  return std::unique_ptr<T>(handle);
}

// An error object the caller destroys (through its table, or PJRT_Error_Destroy).
PJRT_Error* pjrtError(const Failure& failure);
PJRT_Error_Code codeOf(FailureCode code);

template <class Args, class Body>
PJRT_Error* call(const char* fn, Args* args, Body&& body) {
  return guardedCall(fn, args, std::forward<Body>(body), pjrtError);
}

// A string the callee owns, returned as PJRT returns strings: a pointer and a size.
inline void setString(const std::string& text, const char*& data, size_t& size) {
  data = text.data();
  size = text.size();
}

}  // namespace kiln::runtime::pjrt
