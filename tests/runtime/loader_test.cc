// Finding plugins: both are found beside the build's programs, a missing one is an error
// that lists where it looked, and one built for another major version is refused.
#include <cstdlib>

#include "runtime_test_util.h"

namespace kiln::runtime::testing {
namespace {

// Sets an environment variable for one test, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(LoaderTest, FindsBothPlugins) {
  std::vector<std::string> found = findPlugins();
  for (const char* name : kPlugins) {
    EXPECT_NE(std::find(found.begin(), found.end(), name), found.end()) << name;
    Plugin plugin = Plugin::load(name);
    EXPECT_EQ(plugin.name(), name);
    EXPECT_FALSE(plugin.version().empty());
    EXPECT_EQ(plugin.majorVersion(), KILN_PLUGIN_API_MAJOR);
    EXPECT_EQ(plugin.minorVersion(), KILN_PLUGIN_API_MINOR);
  }
}

TEST(LoaderTest, MissingPluginListsWhereItLooked) {
  ScopedEnv path("KILN_PLUGIN_PATH", "/nonexistent/a:/nonexistent/b");
  expectError([] { loadPlugin("nosuch"); }, ErrorKind::Usage,
              "no plugin 'nosuch': looked for libkiln_plugin_nosuch.so in /nonexistent/a, /nonexistent/b, ");
}

TEST(LoaderTest, AnotherMajorVersionIsRefused) {
  ScopedEnv path("KILN_PLUGIN_PATH", KILN_OTHER_PLUGINS_DIR);
  const std::string theirs = std::to_string(KILN_PLUGIN_API_MAJOR + 1) + ".0";
  const std::string ours = std::to_string(KILN_PLUGIN_API_MAJOR) + "." + std::to_string(KILN_PLUGIN_API_MINOR);
  expectError([] { loadPlugin("wrongmajor"); }, ErrorKind::Unsupported,
              "implements the plugin API version " + theirs + ", this host version " + ours +
                  ": their major versions differ");
}

TEST(LoaderTest, KilnPluginPathComesFirst) {
  ScopedEnv path("KILN_PLUGIN_PATH", std::string("/nonexistent:") + KILN_OTHER_PLUGINS_DIR);
  std::vector<std::string> folders = pluginSearchPath();
  ASSERT_GE(folders.size(), 3u);
  EXPECT_EQ(folders[0], "/nonexistent");
  EXPECT_EQ(folders[1], KILN_OTHER_PLUGINS_DIR);
}

}  // namespace
}  // namespace kiln::runtime::testing
