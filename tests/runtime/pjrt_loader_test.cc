// kiln's client opens PJRT plugins: kiln's own by name, any other by path, with the
// checks a client makes first (the table, its major version, initialization), and a
// vendor's real plugin: the CUDA plugin released with jaxlib 0.10.2, which answers
// GetPjrtApi on a machine without a GPU (scripts/setup.sh --vendor-plugin downloads it
// once; the test is skipped without it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "runtime/pjrt_loader.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

std::string errorOf(const std::string& plugin) {
  try {
    loadPjrtPlugin(plugin);
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

TEST(PjrtLoaderTest, OpensKilnsPluginsByName) {
  const PjrtPlugin& cpu = loadPjrtPlugin("cpu");
  EXPECT_EQ(cpu.name, "cpu");
  EXPECT_EQ(cpu.minor, PJRT_API_MINOR);
  EXPECT_EQ(&loadPjrtPlugin("cpu"), &cpu) << "a plugin is opened once";
  EXPECT_EQ(&loadPjrtPlugin(cpu.path), &cpu) << "by name or by path, the same file";
  bool named = false;
  for (const auto& [key, value] : cpu.attributes) named |= key == "kiln_backend" && value == "cpu";
  EXPECT_TRUE(named);
  EXPECT_TRUE(cpu.has(&PJRT_Api::PJRT_Client_Create));
}

TEST(PjrtLoaderTest, RefusesWhatIsNoPluginOfThisMajorVersion) {
  EXPECT_NE(errorOf("nosuch").find("no plugin 'nosuch'"), std::string::npos) << errorOf("nosuch");
  EXPECT_NE(errorOf("/nonexistent/plugin.so").find("no plugin file /nonexistent/plugin.so"), std::string::npos);
  // A shared library without GetPjrtApi.
  const std::string old = std::string(KILN_OTHER_PLUGINS_DIR) + "/libno_pjrt_entry.so";
  EXPECT_NE(errorOf(old).find("is not a PJRT plugin: it does not export GetPjrtApi()"), std::string::npos)
      << errorOf(old);
  const std::string wrong = std::string(KILN_OTHER_PLUGINS_DIR) + "/libpjrt_wrong_major.so";
  const std::string message = errorOf(wrong);
  EXPECT_NE(message.find("implements PJRT C API " + std::to_string(PJRT_API_MAJOR + 1) + ".3, kiln " +
                         std::to_string(PJRT_API_MAJOR) + "." + std::to_string(PJRT_API_MINOR) +
                         ": their major versions differ"),
            std::string::npos)
      << message;
}

TEST(PjrtLoaderTest, OpensAVendorsPlugin) {
  const char* env = std::getenv("KILN_VENDOR_PJRT_PLUGIN");
  const std::string path = env ? env : KILN_VENDOR_PJRT_PLUGIN;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no vendor plugin at " << path << " (scripts/setup.sh --vendor-plugin fetches it)";
  const PjrtPlugin& cuda = loadPjrtPlugin(path);
  std::cout << "vendor plugin: " << cuda.path << ": PJRT C API " << PJRT_API_MAJOR << "." << cuda.minor << "\n";
  for (const auto& [key, value] : cuda.attributes) std::cout << "  " << key << " = " << value << "\n";
  // Released with the jaxlib kiln is tested with: kiln declares no newer minor than it.
  EXPECT_GE(cuda.minor, PJRT_API_MINOR);
  EXPECT_FALSE(cuda.attributes.empty());
  // Without a GPU, creating a client fails with the plugin's own error, cleanly.
  PJRT_Client_Create_Args create{};
  create.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  PJRT_Error* error = cuda.api->PJRT_Client_Create(&create);
  if (!error) {  // a machine with a GPU
    PJRT_Client_Destroy_Args destroy{PJRT_Client_Destroy_Args_STRUCT_SIZE, nullptr, create.client};
    if (PJRT_Error* e = cuda.api->PJRT_Client_Destroy(&destroy)) takeError(*cuda.api, e);
    GTEST_SKIP() << "this machine has a GPU: the plugin made a client";
  }
  const std::string message = takeError(*cuda.api, error);
  std::cout << "  PJRT_Client_Create: " << message << "\n";
  EXPECT_FALSE(message.empty());
}

}  // namespace
}  // namespace kiln::runtime
