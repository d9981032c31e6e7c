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
  try {
    loadPlugin("nosuch");
    FAIL() << "loaded a plugin that does not exist";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(message.find("libkiln_plugin_nosuch.so"), std::string::npos) << message;
    EXPECT_NE(message.find("/nonexistent/a, /nonexistent/b"), std::string::npos) << message;
  }
}

TEST(LoaderTest, AnotherMajorVersionIsRefused) {
  ScopedEnv path("KILN_PLUGIN_PATH", KILN_OTHER_PLUGINS_DIR);
  try {
    loadPlugin("wrongmajor");
    FAIL() << "loaded a plugin of another major version";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(message.find("version " + std::to_string(KILN_PLUGIN_API_MAJOR + 1) + ".0"), std::string::npos)
        << message;
    EXPECT_NE(message.find("this host version " + std::to_string(KILN_PLUGIN_API_MAJOR) + "." +
                           std::to_string(KILN_PLUGIN_API_MINOR)),
              std::string::npos)
        << message;
  }
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
