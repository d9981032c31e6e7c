// What the transform tests share.
#pragma once

#include <functional>
#include <string>

#include "support/error.h"

namespace kiln::transforms::test_util {

// "kind: message" of the kiln::Error that `fn` throws, or "no error".
inline std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return std::string(errorKindName(e.kind())) + ": " + e.message();
  }
  return "no error";
}

}  // namespace kiln::transforms::test_util
