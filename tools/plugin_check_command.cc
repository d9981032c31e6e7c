// `kiln plugin-check PLUGIN`: the conformance kit (testing/plugin_check.h) on a PJRT
// plugin named by its path (a .so: kiln's or any vendor's) or by its name on the search
// path. Exit 0 when every check passes or is skipped for what the plugin does not offer,
// 1 otherwise.
#include <iostream>

#include "commands.h"
#include "testing/plugin_check.h"

namespace kiln::tool {
namespace {

struct PluginCheckOptions {
  std::string plugin;
  double hangSeconds = 120;
};

int runPluginCheck(const PluginCheckOptions& o) {
  testing::PluginCheckSummary s = testing::checkPlugin(o.plugin, std::cout, o.hangSeconds);
  std::cout << "plugin-check: " << s.passed << " passed, " << s.failed << " failed, " << s.skipped << " skipped\n";
  return s.failed == 0 ? 0 : 1;
}

}  // namespace

std::function<int()> addPluginCheckCommand(CLI::App& app) {
  auto o = std::make_shared<PluginCheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plugin-check", "Certify a PJRT plugin (kiln's or a vendor's): its table, programs against kiln's interpreter, "
                      "threads, donation, the kiln extension where it has one, misuse");
  cmd->add_option("plugin", o->plugin, "PATH/plugin.so, or the name of one of kiln's plugins (cpu, interp)")->required();
  cmd->add_option("--hang-seconds", o->hangSeconds, "Fail a check that runs longer than this (default 120)")
      ->check(CLI::PositiveNumber);
  return [o] { return runPluginCheck(*o); };
}

}  // namespace kiln::tool
