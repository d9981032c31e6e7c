// buildIdOf: the identity that keys caches of compiled code by the build that made it.
#include "support/build_id.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace kiln {
namespace {

int anchorInThisBinary() { return 1; }
const int kDataInThisBinary = 2;

// Two addresses of this test binary, code and data, have one identity: the linker's
// build id (Debian's toolchain links with one), 20 bytes of SHA-1 as hex.
TEST(BuildIdTest, OneIdentityPerBinary) {
  const std::string code = buildIdOf(reinterpret_cast<const void*>(&anchorInThisBinary));
  const std::string data = buildIdOf(&kDataInThisBinary);
  EXPECT_EQ(code, data);
  EXPECT_EQ(code.size(), 40u) << code;
  EXPECT_EQ(code.find_first_not_of("0123456789abcdef"), std::string::npos) << code;
}

// Another binary (the C library) has another identity.
TEST(BuildIdTest, AnotherBinaryAnotherIdentity) {
  const std::string mine = buildIdOf(reinterpret_cast<const void*>(&anchorInThisBinary));
  const std::string libc = buildIdOf(reinterpret_cast<const void*>(&std::abort));
  EXPECT_FALSE(libc.empty());
  EXPECT_NE(mine, libc);
}

}  // namespace
}  // namespace kiln
