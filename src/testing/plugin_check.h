// The plugin conformance kit (`kiln plugin-check`), for any PJRT plugin: one that exports
// GetPjrtApi, kiln's or a vendor's, driven through its table as any client would. Its
// table (every entry inside its struct_size filled), attributes, a client, devices and
// memories, buffers of every common type in and out, StableHLO programs compiled and run
// against kiln's interpreter as the oracle, executions and their events from several
// threads at once, serialization, replicas on assigned devices, donation, the kiln
// extension where the plugin has it (extension_check.cc), destroyed handles and a second
// destroy, and misuse answered with error objects. Each check prints a line; a crash or a hang is reported with the check it
// happened in.
#pragma once

#include <ostream>
#include <string>

namespace kiln::testing {

struct PluginCheckSummary {
  int passed = 0, failed = 0, skipped = 0;
};

// Checks the PJRT plugin `nameOrPath` (one of kiln's by name, or a path to a .so),
// printing a line per check to `out`. Throws kiln::Error when it does not load. A check
// that runs longer than `hangSeconds` ends the process (exit 1) after saying which one
// it was.
PluginCheckSummary checkPlugin(const std::string& nameOrPath, std::ostream& out, double hangSeconds = 120);

}  // namespace kiln::testing
