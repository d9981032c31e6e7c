// How every PJRT function of kiln's plugins handles its args struct and its failures
// (runtime/api_call.h), with PJRT's error objects and codes.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <string_view>

#include "kiln/pjrt/c_api.h"
#include "runtime/api_call.h"
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
// Named values as PJRT passes them: the name (and a string value) borrowed, not copied.
inline PJRT_NamedValue stringValue(std::string_view name, std::string_view value) {
  PJRT_NamedValue v{};
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name.data();
  v.name_size = name.size();
  v.type = PJRT_NamedValue_kString;
  v.string_value = value.data();
  v.value_size = value.size();
  return v;
}

inline PJRT_NamedValue floatValue(std::string_view name, double value) {
  PJRT_NamedValue v{};
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name.data();
  v.name_size = name.size();
  v.type = PJRT_NamedValue_kFloat;
  v.float_value = static_cast<float>(value);
  v.value_size = 1;
  return v;
}

inline PJRT_NamedValue int64Value(std::string_view name, int64_t value) {
  PJRT_NamedValue v{};
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name.data();
  v.name_size = name.size();
  v.type = PJRT_NamedValue_kInt64;
  v.int64_value = value;
  v.value_size = 1;
  return v;
}

inline PJRT_NamedValue boolValue(std::string_view name, bool value) {
  PJRT_NamedValue v{};
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name.data();
  v.name_size = name.size();
  v.type = PJRT_NamedValue_kBool;
  v.bool_value = value;
  v.value_size = 1;
  return v;
}

inline void setString(const std::string& text, const char*& data, size_t& size) {
  data = text.data();
  size = text.size();
}

}  // namespace kiln::runtime::pjrt
