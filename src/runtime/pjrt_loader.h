// Opening any PJRT plugin: a shared library exporting GetPjrtApi (kiln's own,
// libkiln_plugin_<name>.so on the plugin search path, or a vendor's, by its path), with
// the checks a client must make before calling into it: the table is there, its major
// version is this client's, and the plugin initializes. A plugin is opened once per
// process and never closed.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kiln/pjrt/c_api.h"

namespace kiln::runtime {

struct PjrtPlugin {
  std::string name;  // "cpu", or the file name of a vendor's plugin
  std::string path;
  const PJRT_Api* api = nullptr;
  int minor = 0;  // the plugin's PJRT C API minor version (older: fewer entries)
  // PJRT_Plugin_Attributes, each value as text (a list as [a, b]).
  std::vector<std::pair<std::string, std::string>> attributes;

  // Whether the table holds `entry` (a plugin of an older minor has fewer entries).
  template <class Entry>
  bool has(Entry PJRT_Api::* entry) const {
    return reinterpret_cast<const char*>(&(api->*entry)) - reinterpret_cast<const char*>(api) + sizeof(Entry) <=
               api->struct_size &&
           api->*entry != nullptr;
  }
};

// The plugin named `nameOrPath`: a path when it holds a '/' or ends in .so, else the name
// of one of kiln's plugins on the search path. Throws kiln::Error: Usage when there is no
// such plugin, Io when the file is no PJRT plugin (naming what is missing),
// Unsupported when its major version is not this client's (naming both versions), and
// the plugin's own error when it fails to initialize.
const PjrtPlugin& loadPjrtPlugin(const std::string& nameOrPath);

// The message of a PJRT error (destroying it), prefixed with what was called.
std::string takeError(const PJRT_Api& api, PJRT_Error* error);

}  // namespace kiln::runtime
