// The plugin conformance kit (`kiln plugin-check`): what a third party runs to certify a
// plugin of the C API (include/kiln/plugin.h). It drives the plugin's table directly, as
// any host could, through every entry point: the calls a host makes to run programs, the
// misuse cases the header promises to answer with an error object (null args and
// handles, a struct_size of 0 or one that leaves out an output, deleted and donated
// buffers, shapes and dtypes that do not fit, devices of another client), failures that
// reach the events of dependent work, and each optional capability: checked when the
// plugin lists it, and otherwise checked to answer "unimplemented" rather than crash.
// Each check prints a line; a crash or a check that hangs prints which one it was.
#pragma once

#include <ostream>
#include <string>

namespace kiln::testing {

struct PluginCheckSummary {
  int passed = 0, failed = 0, skipped = 0;
};

// Checks the plugin `nameOrPath` (a plugin name found on the search path, or a path to a
// .so), printing a line per check to `out`. Throws kiln::Error when it does not load.
// A check that runs longer than `hangSeconds` ends the process (exit 1) after saying
// which one it was.
PluginCheckSummary checkPlugin(const std::string& nameOrPath, std::ostream& out, double hangSeconds = 120);

}  // namespace kiln::testing
