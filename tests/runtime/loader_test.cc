// Finding plugins: both are found beside the build's programs, and a missing one is an
// error that lists where it looked. (PJRT's own checks: pjrt_loader_test.cc.)
#include <cstdlib>

#include "runtime/plugin_loader.h"
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
    EXPECT_EQ(plugin.majorVersion(), PJRT_API_MAJOR);
    EXPECT_EQ(plugin.minorVersion(), PJRT_API_MINOR);
  }
}

TEST(LoaderTest, MissingPluginListsThoseThereAreAndWhereItLooked) {
  ScopedEnv path("KILN_PLUGIN_PATH", "/nonexistent/a:/nonexistent/b");
  expectError([] { Plugin::load("nosuch"); }, ErrorKind::Usage,
              "no plugin 'nosuch' (available: cpu, interp): looked for libkiln_plugin_nosuch.so in /nonexistent/a, "
              "/nonexistent/b, ");
}

// What kiln's plugins offer beyond PJRT's core table: the kiln extension, and as
// attributes, profiles (the cpu plugin's; the interpreter records none) and the mpi
// communicator (where they were built with MPI).
TEST(LoaderTest, BothPluginsOfferTheKilnExtension) {
  for (const char* name : kPlugins) {
    Plugin plugin = Plugin::load(name);
    ASSERT_NE(plugin.extension(), nullptr) << name;
    EXPECT_EQ(plugin.extension()->version, KILN_PJRT_EXTENSION_VERSION);
    EXPECT_NO_THROW(plugin.requireExtension("a test"));
    EXPECT_EQ(plugin.says("kiln_mpi"), KILN_HAVE_MPI == 1) << name;
    EXPECT_EQ(plugin.says("kiln_profiles"), std::string(name) == "cpu") << name;
    EXPECT_FALSE(plugin.says("no_such_attribute"));
  }
}

// A PJRT plugin without the kiln extension (the cpu plugin's core table alone, as another
// vendor's plugin would be) runs everything PJRT's core table allows; what only the
// extension does is an Unsupported error naming the feature.
TEST(LoaderTest, APluginWithoutTheKilnExtensionRunsWhatTheCoreAllows) {
  Plugin plain = Plugin::load(std::string(KILN_OTHER_PLUGINS_DIR) + "/libpjrt_plain.so");
  EXPECT_EQ(plain.extension(), nullptr);
  EXPECT_EQ(plain.name(), "cpu");  // its attributes are still the cpu plugin's
  Client client(plain, ClientOptions{2, 0});
  ASSERT_EQ(client.devices().size(), 2u);
  Device d = client.devices()[1];
  CompileOptions options;
  options.name = "add_one.mlir";  // (a setting of kiln's: not sent to a plugin without the extension)
  Executable addOne = client.compile(kAddOne, options);
  Buffer x = client.bufferFromHost(f32({4}, {1, 2, 3, 4}), d);
  Executable::Execution run = addOne.execute({&x}, d);
  EXPECT_EQ(run.outputs[0].toLiteral(), f32({4}, {2, 3, 4, 5}));
  EXPECT_EQ(run.outputs[0].device().id(), 1);
  const ExecutableInfo info = addOne.info();
  EXPECT_EQ(info.results, (std::vector<Type>{Type::tensor(DType::F32, {4})}));
  EXPECT_TRUE(info.parameters.empty());  // PJRT's core table does not say
  EXPECT_TRUE(addOne.statistics().empty());
  Executable back = client.deserialize(addOne.serialize());
  EXPECT_EQ(back.execute({&x}, d).outputs[0].toLiteral(), f32({4}, {2, 3, 4, 5}));
  expectError([&] { addOne.text("report"); }, ErrorKind::Unsupported, "has no kiln extension");
  expectError([&] { addOne.withEntry("main"); }, ErrorKind::Unsupported, "KILN_loaded_executable_with_entry");
  EXPECT_NO_THROW(addOne.execute({&x}, d, {.label = "here"}).done.await());  // a label only prefixes errors: left out
  expectError([&] { addOne.execute({&x}, d, {.timeLimit = std::chrono::seconds(9)}); }, ErrorKind::Unsupported,
              "KILN_execute");
  expectError([&] { run.cancel(); }, ErrorKind::Unsupported, "KILN_event_cancel");
  expectError([&] { d.infeed(f32({4}, {1, 2, 3, 4})); }, ErrorKind::Unsupported, "KILN_device_infeed");
  CompileOptions fast;
  fast.optimization = Optimization::Fast;
  expectError([&] { client.compile(kAddOne, fast); }, ErrorKind::Unsupported, "the compile option kiln.optimization");
  // Plain StableHLO only: an op of kiln's own is refused at the op, before the plugin sees it.
  CompileOptions named;
  named.name = "print.mlir";
  try {
    client.compile(R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  "interpreter.print"(%x) : (tensor<4xf32>) -> ()
  return %x : tensor<4xf32>
})", named);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
    EXPECT_EQ(e.format().rfind("print.mlir:2:3: error: unsupported: interpreter.print is kiln's own: plugin 'cpu' has no "
                               "kiln extension and takes plain StableHLO",
                               0),
              0u)
        << e.format();
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
