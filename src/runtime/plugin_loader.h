// Finding and opening plugins: libkiln_plugin_<name>.so in the folders of
// $KILN_PLUGIN_PATH (colon-separated) first, then beside the running program's libraries
// (../lib from its folder: the build tree puts plugins in build/lib and programs in
// build/tools, build/tests; an install puts them in lib/ and bin/), then that folder
// itself. A plugin is opened once per process and never closed (its threads and its
// compiled code may outlive every handle to it).
#pragma once

#include <string>
#include <vector>

#include "kiln/plugin.h"

namespace kiln::runtime {

struct LoadedPlugin {
  std::string name;  // "cpu"
  std::string path;  // the file it was loaded from
  const KilnPluginApi* api = nullptr;
  // The optional capabilities it implements (KILN_CAPABILITY_*), asked once when loaded:
  // those it lists, or for a plugin before API 0.4 capabilitiesBeforeListing().
  std::vector<std::string> capabilities;
};

// The folders searched, in order.
std::vector<std::string> pluginSearchPath();

// The plugin called `name` (loaded on first use). Throws kiln::Error: Usage when no
// folder has it (listing those searched), Unsupported when its API's major version is
// not this host's (naming both), Io when the file is not a plugin.
const LoadedPlugin& loadPlugin(const std::string& name);

// The file of the plugin called `name` on the search path; throws kiln::Error (Usage)
// when no folder has it, listing those searched and the plugins there are.
std::string pluginFile(const std::string& name);

// The same for a file named by its path (its name is taken from the file name).
const LoadedPlugin& loadPluginFile(const std::string& path);

// The optional capabilities (KILN_CAPABILITY_*) of a plugin of API 0.`minor` < 0.4, which
// cannot list them: every function of its table had to work, so it has those that
// existed (multi_device, serialize, cost_analysis, memory_stats), and not donation or
// cancellation.
std::vector<std::string> capabilitiesBeforeListing();

// The names of the plugins on the search path (the first of each name), sorted.
std::vector<std::string> findPlugins();

}  // namespace kiln::runtime
