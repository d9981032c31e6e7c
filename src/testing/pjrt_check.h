// The conformance kit for any PJRT plugin (`kiln plugin-check --pjrt`): a plugin that
// exports GetPjrtApi, kiln's or a vendor's, driven through its table as any client
// would. Its table (every entry inside its struct_size filled), attributes, a client,
// devices and memories, buffers of every common type in and out, StableHLO programs
// compiled and run against kiln's interpreter as the oracle, executions and their events
// from several threads at once, donation, and misuse answered with error objects. A
// crash or a hang is reported with the check it happened in.
#pragma once

#include <ostream>
#include <string>

#include "testing/plugin_check.h"

namespace kiln::testing {

// Checks the PJRT plugin `nameOrPath` (one of kiln's by name, or a path to a .so),
// printing a line per check to `out`. Throws kiln::Error when it does not load.
PluginCheckSummary checkPjrtPlugin(const std::string& nameOrPath, std::ostream& out, double hangSeconds = 120);

}  // namespace kiln::testing
