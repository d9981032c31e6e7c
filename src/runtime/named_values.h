// PJRT's named values (create options, attributes, cost analyses, statistics) as both
// sides of the C API make them: the name, and a string value, borrowed, not copied.
#pragma once

#include <cstdint>
#include <string_view>

#include "kiln/pjrt/c_api.h"

namespace kiln::runtime {

inline PJRT_NamedValue namedValue(std::string_view name, PJRT_NamedValue_Type type) {
  PJRT_NamedValue v{};
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name.data();
  v.name_size = name.size();
  v.type = type;
  v.value_size = 1;
  return v;
}

inline PJRT_NamedValue stringValue(std::string_view name, std::string_view value) {
  PJRT_NamedValue v = namedValue(name, PJRT_NamedValue_kString);
  v.string_value = value.data();
  v.value_size = value.size();
  return v;
}

inline PJRT_NamedValue floatValue(std::string_view name, double value) {
  PJRT_NamedValue v = namedValue(name, PJRT_NamedValue_kFloat);
  v.float_value = static_cast<float>(value);
  return v;
}

inline PJRT_NamedValue int64Value(std::string_view name, int64_t value) {
  PJRT_NamedValue v = namedValue(name, PJRT_NamedValue_kInt64);
  v.int64_value = value;
  return v;
}

inline PJRT_NamedValue int64ListValue(std::string_view name, const int64_t* values, size_t count) {
  PJRT_NamedValue v = namedValue(name, PJRT_NamedValue_kInt64List);
  v.int64_array_value = values;
  v.value_size = count;
  return v;
}

inline PJRT_NamedValue boolValue(std::string_view name, bool value) {
  PJRT_NamedValue v = namedValue(name, PJRT_NamedValue_kBool);
  v.bool_value = value;
  return v;
}

}  // namespace kiln::runtime
