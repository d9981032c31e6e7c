// The disk cache of compiled code: entries round-trip, a damaged or truncated entry is a
// miss, and readers racing writers see a whole entry or none.
#include "support/disk_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

namespace kiln {
namespace {

std::string freshDir(const std::string& name) {
  std::string dir = (std::filesystem::temp_directory_path() / ("kiln_disk_cache_" + name)).string();
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(DiskCacheTest, EntriesRoundTripAndDamageIsAMiss) {
  DiskCache cache(freshDir("round_trip"));
  EXPECT_FALSE(cache.load("key"));
  std::string code(5000, '\0');
  for (size_t i = 0; i < code.size(); ++i) code[i] = static_cast<char>(i * 7);
  cache.store("key", code);
  ASSERT_TRUE(cache.load("key"));
  EXPECT_EQ(*cache.load("key"), code);
  EXPECT_FALSE(cache.load("another key"));
  // One byte flipped in the payload.
  {
    std::fstream f(cache.pathOf("key"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('x');
  }
  EXPECT_FALSE(cache.load("key"));
  // Truncated.
  cache.store("key", code);
  std::filesystem::resize_file(cache.pathOf("key"), 60);
  EXPECT_FALSE(cache.load("key"));
  // Another key's entry under this key's name.
  cache.store("other", code);
  std::filesystem::copy_file(cache.pathOf("other"), cache.pathOf("key"),
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_FALSE(cache.load("key"));
}

TEST(DiskCacheTest, ReadersRacingWritersSeeAWholeEntryOrNone) {
  DiskCache cache(freshDir("race"));
  const std::string a(20000, 'a'), b(30000, 'b');
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < 50; ++i) cache.store("shared", w == 0 ? a : b);
    });
  int whole = 0, bad = 0;  // loads that saw one writer's entry whole, or anything else
  threads.emplace_back([&] {
    for (int i = 0; i < 200; ++i)
      if (std::optional<std::string> got = cache.load("shared")) ++(*got == a || *got == b ? whole : bad);
  });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(bad, 0);
  ASSERT_TRUE(cache.load("shared"));
  EXPECT_TRUE(*cache.load("shared") == a || *cache.load("shared") == b);
  // No temporary files are left behind.
  const std::string folder = std::filesystem::path(cache.pathOf("shared")).parent_path().string();
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    EXPECT_EQ(entry.path().extension(), ".entry") << entry.path();
}

TEST(DiskCacheTest, KilnCacheDirChoosesTheFolderAndOffTurnsItOff) {
  // The environment as it was, put back after.
  auto saved = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const std::optional<std::string> dir = saved("KILN_CACHE_DIR"), xdg = saved("XDG_CACHE_HOME");
  ::setenv("KILN_CACHE_DIR", "/tmp/somewhere", 1);
  EXPECT_EQ(defaultCacheDir(), "/tmp/somewhere");
  ::setenv("KILN_CACHE_DIR", "off", 1);
  EXPECT_EQ(defaultCacheDir(), "");
  ::unsetenv("KILN_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(defaultCacheDir(), "/tmp/xdg/kiln");
  for (auto [name, value] : {std::pair{"KILN_CACHE_DIR", dir}, std::pair{"XDG_CACHE_HOME", xdg}}) {
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
}

}  // namespace
}  // namespace kiln
