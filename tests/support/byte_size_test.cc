// Sizes as people write them, and back.
#include <gtest/gtest.h>

#include "support/byte_size.h"
#include "support/error.h"

namespace kiln {
namespace {

TEST(ByteSizeTest, ReadsNumbersAndBinarySuffixes) {
  EXPECT_EQ(parseByteSize("65536", "--memory-limit"), 65536);
  EXPECT_EQ(parseByteSize("64B", "--memory-limit"), 64);
  EXPECT_EQ(parseByteSize("4k", "--memory-limit"), 4096);
  EXPECT_EQ(parseByteSize("512M", "--memory-limit"), int64_t{512} << 20);
  EXPECT_EQ(parseByteSize("512MiB", "--memory-limit"), int64_t{512} << 20);
  EXPECT_EQ(parseByteSize("1.5GB", "--memory-limit"), int64_t{3} << 29);
  EXPECT_EQ(parseByteSize("2T", "--memory-limit"), int64_t{2} << 40);
}

TEST(ByteSizeTest, RefusesWhatIsNotASize) {
  for (const char* bad : {"", "G", "12X", "-5", "1.2.3M", "4GiBs", "99999999999T"}) {
    try {
      parseByteSize(bad, "KILN_MEMORY_LIMIT");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_EQ(std::string(e.what()), "KILN_MEMORY_LIMIT: '" + std::string(bad) +
                                           "' is not a size in bytes (write 4G, 512M, 1.5GiB or a number of bytes)");
    }
  }
}

TEST(ByteSizeTest, Formats) {
  EXPECT_EQ(formatBytes(17), "17 B");
  EXPECT_EQ(formatBytes(3 * 1024), "3.0 KiB");
  EXPECT_EQ(formatBytes(int64_t{12} << 20), "12.00 MiB");
  EXPECT_EQ(formatBytes(int64_t{3} << 29), "1.50 GiB");
}

}  // namespace
}  // namespace kiln
