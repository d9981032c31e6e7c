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

TEST(LoaderTest, MissingPluginListsThoseThereAreAndWhereItLooked) {
  ScopedEnv path("KILN_PLUGIN_PATH", "/nonexistent/a:/nonexistent/b");
  expectError([] { loadPlugin("nosuch"); }, ErrorKind::Usage,
              "no plugin 'nosuch' (available: cpu, interp): looked for libkiln_plugin_nosuch.so in /nonexistent/a, "
              "/nonexistent/b, ");
}

TEST(LoaderTest, AnotherMajorVersionIsRefused) {
  ScopedEnv path("KILN_PLUGIN_PATH", KILN_OTHER_PLUGINS_DIR);
  const std::string theirs = std::to_string(KILN_PLUGIN_API_MAJOR + 1) + ".0";
  const std::string ours = std::to_string(KILN_PLUGIN_API_MAJOR) + "." + std::to_string(KILN_PLUGIN_API_MINOR);
  expectError([] { loadPlugin("wrongmajor"); }, ErrorKind::Unsupported,
              "implements the plugin API version " + theirs + ", this host version " + ours +
                  ": their major versions differ");
}

TEST(LoaderTest, BothPluginsListEveryCapability) {
  for (const char* name : kPlugins) {
    Plugin plugin = Plugin::load(name);
    std::vector<std::string> found = plugin.capabilities();
    for (const char* capability : {KILN_CAPABILITY_MULTI_DEVICE, KILN_CAPABILITY_SERIALIZE, KILN_CAPABILITY_DONATION,
                                   KILN_CAPABILITY_CANCELLATION, KILN_CAPABILITY_COST_ANALYSIS,
                                   KILN_CAPABILITY_MEMORY_STATS, KILN_CAPABILITY_MPMD, KILN_CAPABILITY_TEXT,
                                   KILN_CAPABILITY_FEEDS}) {
      EXPECT_TRUE(plugin.has(capability)) << name << " " << capability;
      EXPECT_NO_THROW(plugin.require(capability, "a test"));
    }
    // The mpi communicator, where the plugins were built with MPI; profiles, from the
    // cpu plugin (the interpreter records none).
    EXPECT_EQ(plugin.has(KILN_CAPABILITY_MPI), KILN_HAVE_MPI == 1) << name;
    const bool profiles = std::string(name) == "cpu";
    EXPECT_EQ(plugin.has(KILN_CAPABILITY_PROFILE), profiles) << name;
    EXPECT_EQ(found.size(), 9u + (profiles ? 1 : 0) + KILN_HAVE_MPI) << name;
  }
}

// A plugin of API 0.3 works for what 0.3 had; what came later is "unsupported", asked of
// the host's wrapper before any call the plugin could misread.
TEST(LoaderTest, AnOlderMinorVersionWorksWithoutWhatCameAfterIt) {
  ScopedEnv path("KILN_PLUGIN_PATH", KILN_OTHER_PLUGINS_DIR);
  Plugin old = Plugin::load("oldminor");
  EXPECT_EQ(old.minorVersion(), 3);
  EXPECT_EQ(old.capabilities(), capabilitiesBeforeListing());  // what 0.3 had to have
  EXPECT_TRUE(old.has(KILN_CAPABILITY_SERIALIZE));
  EXPECT_FALSE(old.has(KILN_CAPABILITY_DONATION));
  Client client(old);
  Device d = client.devices()[0];
  Executable addOne = client.compile(kAddOne);
  Buffer x = client.bufferFromHost(f32({4}, {1, 2, 3, 4}), d);
  Executable::Execution run = addOne.execute({&x}, d);
  EXPECT_EQ(run.outputs[0].toLiteral().floatAt(3), 5.0);
  expectError([&] { addOne.execute({&x}, d, {"", {0}}); }, ErrorKind::Unsupported,
              "unsupported: donating arguments: plugin 'oldminor' (API 0.3) lacks the capability 'donation'");
  expectError([&] { run.cancel(); }, ErrorKind::Unsupported, "unsupported: plugin 'oldminor' has no execution_cancel");
  EXPECT_EQ(x.toLiteral().floatAt(0), 1.0);  // not donated
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
