// `kiln devices`: the plugins on the search path, their versions and attributes, and
// each one's devices (what a client of it gets by default: KILN_CPU_DEVICES sets the cpu
// plugin's count).
#include <fmt/format.h>

#include <iostream>

#include "commands.h"
#include "runtime/client.h"
#include "runtime/plugin_loader.h"

namespace kiln::tool {
namespace {

struct DevicesOptions {
  std::vector<std::string> plugins;  // empty: every plugin found
};

std::string gibibytes(int64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30)); }

int runDevices(const DevicesOptions& o) {
  std::vector<std::string> names = o.plugins.empty() ? runtime::findPlugins() : o.plugins;
  if (names.empty()) {
    std::string folders;
    for (const std::string& f : runtime::pluginSearchPath()) folders += "\n  " + f;
    std::cerr << "no plugins found; looked in:" << folders << "\n";
    return 1;
  }
  int status = 0;
  for (const std::string& name : names) {
    try {
      runtime::Plugin plugin = runtime::Plugin::load(name);
      std::cout << plugin.name() << " " << plugin.version() << " (PJRT C API " << plugin.majorVersion() << "."
                << plugin.minorVersion() << (plugin.extension() ? ", kiln extension" : "") << ", " << plugin.path()
                << ")\n";
      std::string attributes;
      for (const auto& [key, value] : plugin.attributes())
        attributes += (attributes.empty() ? "" : ", ") + key + "=" + value;
      std::cout << "  attributes: " << (attributes.empty() ? "none" : attributes) << "\n";
      runtime::Client client(plugin);
      for (const runtime::Device& d : client.devices())
        std::cout << "  device " << d.id() << ": " << d.description() << ", memory " << gibibytes(d.memorySize())
                  << "\n";
    } catch (const Error& e) {
      // One plugin that does not load does not hide the others.
      std::cerr << name << ": " << e.message() << "\n";  // the listing goes on; the exit says it
      status = 1;
    }
  }
  return status;
}

}  // namespace

std::function<int()> addDevicesCommand(CLI::App& app) {
  auto o = std::make_shared<DevicesOptions>();
  CLI::App* cmd = app.add_subcommand("devices", "List the plugins found, their versions and their devices");
  cmd->add_option("plugins", o->plugins, "Plugin names (default: every plugin on the search path)");
  return [o] { return runDevices(*o); };
}

}  // namespace kiln::tool
