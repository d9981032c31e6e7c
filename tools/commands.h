// The subcommands of the `kiln` tool: each registers its options and its action.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "support/source.h"

namespace kiln::tool {

// Reads FILE, or standard input for "-".
SourceRef readInput(const std::string& path);

// Each adds its subcommand to `app`; the returned action runs it (returns the exit code).
std::function<int()> addCompileCommand(CLI::App& app);
std::function<int()> addFmtCommand(CLI::App& app);
std::function<int()> addRunCommand(CLI::App& app);
std::function<int()> addTestCommand(CLI::App& app);

}  // namespace kiln::tool
