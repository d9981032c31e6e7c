// How every PJRT function of kiln's plugins handles its args struct and its failures
// (runtime/api_call.h), with PJRT's error objects and codes.
#pragma once

#include <string>
#include <string_view>

#include "kiln/pjrt/c_api.h"
#include "runtime/api_call.h"

namespace kiln::runtime::pjrt {

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
