// `kiln fmt`: parse, verify and print StableHLO text in canonical form; with --check,
// report which files of a corpus survive the parse/print round trip.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "commands.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "stablehlo/round_trip.h"
#include "support/atomic_file.h"
#include "support/error.h"

namespace kiln::tool {
namespace {

namespace fs = std::filesystem;

struct FmtOptions {
  std::vector<std::string> inputs;
  std::string output;
  bool generic = false;
  bool noLocations = false;
  bool noVerify = false;
  bool check = false;
};

int formatFile(const FmtOptions& o) {
  if (o.inputs.size() != 1) throw Error(ErrorKind::Usage, "kiln fmt formats one file at a time (or use --check)");
  SourceRef source = readInput(o.inputs[0]);
  stablehlo::ParseOptions parseOptions;
  parseOptions.verify = !o.noVerify;
  auto modules = stablehlo::parseFile(source, parseOptions);
  stablehlo::PrintOptions printOptions;
  printOptions.generic = o.generic;
  printOptions.locations = !o.noLocations;
  std::string text;
  for (size_t i = 0; i < modules.size(); ++i) {
    if (i) text += "\n// -----\n\n";
    text += stablehlo::printModule(*modules[i], printOptions);
  }
  if (o.output.empty()) {
    std::cout << text;
    return 0;
  }
  writeFileAtomically(o.output, text);
  return 0;
}

// Every .mlir file under the given paths, sorted, grouped by their directory.
std::map<std::string, std::vector<std::string>> collectFiles(const std::vector<std::string>& paths) {
  std::map<std::string, std::vector<std::string>> groups;
  for (const std::string& p : paths) {
    if (fs::is_directory(p)) {
      for (const auto& entry : fs::recursive_directory_iterator(p))
        if (entry.is_regular_file() && entry.path().extension() == ".mlir")
          groups[entry.path().parent_path().string()].push_back(entry.path().string());
    } else if (fs::exists(p)) {
      groups[fs::path(p).parent_path().string()].push_back(p);
    } else {
      throw Error(ErrorKind::Io, "no such file or directory: '" + p + "'");
    }
  }
  for (auto& [dir, files] : groups) std::sort(files.begin(), files.end());
  return groups;
}

int checkFiles(const FmtOptions& o) {
  using Status = stablehlo::RoundTripResult::Status;
  size_t totalOk = 0, totalUnsupported = 0, totalErrors = 0;
  std::vector<std::string> errors;
  std::map<std::string, size_t> unsupportedReasons;
  std::printf("%-56s %6s %6s %11s %6s\n", "suite", "files", "ok", "unsupported", "error");
  for (const auto& [dir, files] : collectFiles(o.inputs)) {
    size_t ok = 0, unsupported = 0, failed = 0;
    for (const std::string& file : files) {
      stablehlo::RoundTripResult r = stablehlo::checkRoundTrip(SourceBuffer::fromFile(file));
      if (r.status == Status::Ok) {
        ++ok;
      } else if (r.status == Status::Unsupported) {
        ++unsupported;
        // "path:line:col: error: unsupported: what (detail)\n..." -> "what"
        std::string first = r.message.substr(0, r.message.find('\n'));
        size_t at = first.find("unsupported: ");
        std::string reason = at == std::string::npos ? first : first.substr(at + 13);
        unsupportedReasons[reason.substr(0, reason.find(" ("))]++;
      } else {  // invalid input, or a printer/parser mismatch
        ++failed;
        errors.push_back(r.message);
      }
    }
    std::printf("%-56s %6zu %6zu %11zu %6zu\n", dir.c_str(), files.size(), ok, unsupported, failed);
    totalOk += ok;
    totalUnsupported += unsupported;
    totalErrors += failed;
  }
  for (const auto& [reason, n] : unsupportedReasons) std::printf("unsupported (%zu file%s): %s\n", n, n == 1 ? "" : "s", reason.c_str());
  for (const std::string& e : errors) std::printf("%s\n", e.c_str());
  std::printf("%zu round-trip, %zu unsupported, %zu failed\n", totalOk, totalUnsupported, totalErrors);
  return totalErrors == 0 ? 0 : 1;
}

}  // namespace

std::function<int()> addFmtCommand(CLI::App& app) {
  auto o = std::make_shared<FmtOptions>();
  CLI::App* cmd = app.add_subcommand("fmt", "Parse, verify and print StableHLO text in canonical form");
  cmd->add_option("files", o->inputs, "Input .mlir file, or - for standard input (with --check: files or folders)")
      ->required();
  cmd->add_option("-o,--output", o->output, "Write to this file instead of standard output");
  cmd->add_flag("--generic", o->generic, "Print every op in the generic form");
  cmd->add_flag("--no-locations", o->noLocations, "Leave out loc(...) source locations");
  cmd->add_flag("--no-verify", o->noVerify, "Skip the verifier (parse errors are still reported)");
  cmd->add_flag("--check", o->check,
                "Check that each file (folders: every .mlir inside) parses, verifies and prints back "
                "to itself; print a table per folder");
  return [o] { return o->check ? checkFiles(*o) : formatFile(*o); };
}

}  // namespace kiln::tool
