// `kiln plugin-check PLUGIN`: the conformance kit (testing/plugin_check.h) on a plugin
// named by its path (a .so) or by its name on the search path; with --pjrt, the PJRT
// kit (testing/pjrt_check.h), for kiln's plugins or any vendor's. Exit 0 when every check
// passes or is skipped for a capability the plugin does not list, 1 otherwise.
#include <iostream>

#include "commands.h"
#include "testing/pjrt_check.h"
#include "testing/plugin_check.h"

namespace kiln::tool {
namespace {

struct PluginCheckOptions {
  std::string plugin;
  double hangSeconds = 120;
  bool pjrt = false;
};

int runPluginCheck(const PluginCheckOptions& o) {
  testing::PluginCheckSummary s = o.pjrt ? testing::checkPjrtPlugin(o.plugin, std::cout, o.hangSeconds)
                                         : testing::checkPlugin(o.plugin, std::cout, o.hangSeconds);
  std::cout << "plugin-check: " << s.passed << " passed, " << s.failed << " failed, " << s.skipped << " skipped\n";
  return s.failed == 0 ? 0 : 1;
}

}  // namespace

std::function<int()> addPluginCheckCommand(CLI::App& app) {
  auto o = std::make_shared<PluginCheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plugin-check", "Certify a plugin: every entry point of the C API, its misuse cases and its capabilities");
  cmd->add_option("plugin", o->plugin, "PATH/libkiln_plugin_NAME.so, or a plugin name on the search path")->required();
  cmd->add_flag("--pjrt", o->pjrt,
                "Check it as a PJRT plugin (GetPjrtApi): kiln's, or any vendor's; without it, kiln's own ABI");
  cmd->add_option("--hang-seconds", o->hangSeconds, "Fail a check that runs longer than this (default 120)")
      ->check(CLI::PositiveNumber);
  return [o] { return runPluginCheck(*o); };
}

}  // namespace kiln::tool
