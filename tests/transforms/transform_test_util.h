// What the transform tests share.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>

#include "ir/literal.h"
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

// Slice `index` of `lit` along `axis`.
inline Literal sliceAt(const Literal& lit, int64_t axis, int64_t index) {
  Shape shape = lit.shape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t n = shape[static_cast<size_t>(axis)];
  shape.erase(shape.begin() + axis);
  Literal out(Type::tensor(lit.dtype(), shape));
  const size_t width = static_cast<size_t>(storageBytes(lit.dtype()));
  Literal full = lit;
  const uint8_t* src = full.mutableStorage();
  uint8_t* dst = out.mutableStorage();
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(dst + static_cast<size_t>(o * inner) * width, src + static_cast<size_t>((o * n + index) * inner) * width,
                static_cast<size_t>(inner) * width);
  return out;
}

// Expects `a` and `b` to hold the same type and the same bytes (vmap is checked bit for bit).
inline void expectSameBits(const Literal& a, const Literal& b, const std::string& what) {
  ASSERT_EQ(a.type(), b.type()) << what;
  const size_t bytes = static_cast<size_t>(a.numElements() * storageBytes(a.dtype()));
  Literal x = a, y = b;
  EXPECT_EQ(std::memcmp(x.mutableStorage(), y.mutableStorage(), bytes), 0) << what;
}

}  // namespace kiln::transforms::test_util
