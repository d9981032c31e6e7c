// What the bytecode reader's tests share: the portable artifact jaxlib 0.10.2 wrote
// (tests/stablehlo/bytecode/dot_tanh.mlirbc: jax.export of tanh(x @ y) + 1 on f32[4,3] and
// f32[3,2]), and reading copies of it with bytes damaged.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "stablehlo/bytecode_container.h"
#include "support/error.h"

namespace kiln::stablehlo::bytecode {

inline std::string goldenBytecode() {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/stablehlo/bytecode/dot_tanh.mlirbc", std::ios::binary);
  EXPECT_TRUE(in);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Calls `read` on copies of `bytes` with each byte of each of `entries` set to five
// values: a kiln::Error is fine, a crash is not.
template <class Read>
void readWithEachByteDamaged(const std::string& bytes, const std::vector<Entry>& entries, Read read) {
  for (const Entry& entry : entries)
    for (size_t at = 0; at < entry.bytes.size(); ++at)
      for (uint8_t value : {0x00, 0x01, 0x03, 0x7f, 0xff}) {
        std::string damaged = bytes;
        damaged[entry.offset + at] = static_cast<char>(value);
        try {
          read(damaged);
        } catch (const Error&) {
          // (an error is fine: a crash is not)
        }
      }
}

}  // namespace kiln::stablehlo::bytecode
