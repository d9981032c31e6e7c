// Finding kiln's plugins (pjrt_loader.h opens them): libkiln_plugin_<name>.so in the folders of
// $KILN_PLUGIN_PATH (colon-separated) first, then beside the running program's libraries
// (../lib from its folder: the build tree puts plugins in build/lib and programs in
// build/tools, build/tests; an install puts them in lib/ and bin/), then that folder
// itself. A plugin is opened once per process and never closed (its threads and its
// compiled code may outlive every handle to it).
#pragma once

#include <string>
#include <vector>

namespace kiln::runtime {

// The folders searched, in order.
std::vector<std::string> pluginSearchPath();

// The file of the plugin called `name` on the search path; throws kiln::Error (Usage)
// when no folder has it, listing those searched and the plugins there are.
std::string pluginFile(const std::string& name);

// The names of the plugins on the search path (the first of each name), sorted.
std::vector<std::string> findPlugins();

}  // namespace kiln::runtime
