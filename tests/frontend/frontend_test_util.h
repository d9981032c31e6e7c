// Helpers the frontend's tests share: small arrays from C values, the message of an
// expected error, and reading the golden files NumPy wrote (golden/*.golden).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace kiln_test {

inline kiln::Array f32(std::vector<float> v, std::vector<int64_t> shape) { return kiln::Array::from_vector(v, shape); }
inline std::vector<float> values(const kiln::Array& a) { return a.to_vector<float>(); }

// What `f` throws as ApiError, or "no error".
template <class F>
std::string errorMessage(F&& f) {
  try {
    f();
  } catch (const kiln::ApiError& e) {
    return e.what();
  }
  return "no error";
}

// `text` cut at each `separator` (empty parts kept).
inline std::vector<std::string> splitOn(const std::string& text, const std::string& separator) {
  std::vector<std::string> parts;
  size_t at = 0;
  for (;;) {
    size_t next = text.find(separator, at);
    parts.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return parts;
    at = next + separator.size();
  }
}

// The integers of "1,-2,3" (blank parts skipped).
inline std::vector<int64_t> integers(const std::string& text, const std::string& separator = ",") {
  std::vector<int64_t> out;
  for (const std::string& s : splitOn(text, separator))
    if (s.find_first_not_of(' ') != std::string::npos) out.push_back(std::stoll(s));
  return out;
}

}  // namespace kiln_test
