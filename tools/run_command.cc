// `kiln run FILE.mlir`: run one function on inputs from .npy files (or random ones) and
// print or save its results.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>

#include "backends/cpu/disk_cache.h"
#include "backends/cpu/program_cache.h"
#include "commands.h"
#include "interp/array_print.h"
#include "interp/interpreter.h"
#include "passes/fill_elided_constants.h"
#include "passes/memory_limit.h"
#include "stablehlo/npy.h"
#include "stablehlo/parser.h"
#include "support/error.h"

namespace kiln::tool {
namespace {

struct RunOptions {
  cpu::CompileTier tier = cpu::CompileTier::Optimized;
  std::string file;
  std::string entry;  // default: main, or the only public function
  std::vector<std::string> inputs;
  std::optional<uint64_t> randomSeed;
  std::optional<uint64_t> fillElided;
  double randomScale = 1;
  std::string outputDir;
  std::string probeDir;
  bool noPrint = false;
  std::string backend = "cpu";
  std::string memoryLimit;
  double timeLimit = 0;  // seconds; 0: none
};

int runRun(const RunOptions& o) {
  if (o.backend != "cpu" && o.backend != "interp")
    throw Error(ErrorKind::Usage, "unknown backend '" + o.backend + "' (available: cpu, interp)");
  const SourceRef source = readInput(o.file);
  // cpu: the optimized module, compiled or from the disk cache (whole executables are
  // kept there, so a warm start neither parses the program nor runs the pipeline).
  std::unique_ptr<cpu::Executable> executable;
  std::unique_ptr<Module> parsed;
  if (o.backend == "cpu") {
    executable = cpu::compileSource(source, sourceCompile(o.tier, o.fillElided, memoryLimitOf(o.memoryLimit))).executable;
  } else {
    auto modules = stablehlo::parseFile(source);
    if (modules.size() != 1)
      throw Error(ErrorKind::Unsupported, "unsupported: " + o.file + " has " + std::to_string(modules.size()) +
                                              " parts ('// -----'); kiln run takes one module");
    parsed = std::move(modules[0]);
    if (o.fillElided) passes::fillElidedConstants(*parsed, *o.fillElided);
    passes::checkMemoryLimit(*parsed, memoryLimitOf(o.memoryLimit));
  }
  const Module& module = executable ? executable->module() : *parsed;
  const std::string entry = entryName(module, o.entry, o.file);
  const Function* fn = module.lookup(entry);
  TypeList params = fn->paramTypes();
  interp::HostValues args;
  if (o.randomSeed) {
    if (!o.inputs.empty()) throw Error(ErrorKind::Usage, "give either --input files or --random-inputs, not both");
    std::mt19937_64 rng(*o.randomSeed);
    for (const Type& t : params) {
      if (!t.isTensor()) throw Error(ErrorKind::Unsupported, "unsupported: random inputs of type " + t.str());
      args.push_back(randomInput(t, rng, o.randomScale));
    }
  } else {
    if (o.inputs.size() != params.size()) {
      throw Error(ErrorKind::Usage, "@" + entry + " takes " + std::to_string(params.size()) + " input(s) (" +
                                        str(params) + "), " + std::to_string(o.inputs.size()) +
                                        " given (use --input FILE.npy per input, or --random-inputs SEED)");
    }
    for (size_t i = 0; i < params.size(); ++i) {
      Literal value = stablehlo::readNpy(o.inputs[i]);
      if (value.type() != params[i])
        throw Error(ErrorKind::Type, "input " + std::to_string(i) + " (" + o.inputs[i] + ") is " +
                                         value.type().str() + ", but @" + entry + " expects " + params[i].str());
      args.push_back(std::move(value));
    }
  }
  interp::InterpOptions io;
  io.probeDir = o.probeDir;
  if (o.timeLimit > 0)
    io.deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(o.timeLimit));
  interp::HostValues results;
  if (executable) {
    results = executable->call(*fn, args, io);
  } else {
    interp::Interpreter interp(module, io);
    results = interp.call(*fn, args);
  }
  if (!o.outputDir.empty()) std::filesystem::create_directories(o.outputDir);
  for (size_t i = 0; i < results.size(); ++i) {
    const interp::HostValue& r = results[i];
    if (!o.noPrint) {
      std::cout << "result " << i << ": " << r.type().str() << "\n";
      if (r.isTensor()) std::cout << interp::formatArray(r.tensor()) << "\n";
    }
    if (!o.outputDir.empty()) {
      if (!r.isTensor()) throw Error(ErrorKind::Unsupported, "unsupported: saving a " + r.type().str() + " result");
      std::string path = (std::filesystem::path(o.outputDir) / ("result_" + std::to_string(i) + ".npy")).string();
      stablehlo::writeNpy(path, r.tensor());
    }
  }
  return 0;
}

}  // namespace

std::function<int()> addRunCommand(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a function of a StableHLO file (on cpu, or the reference interpreter)");
  cmd->add_option("file", o->file, "The .mlir file, or - for standard input")->required();
  cmd->add_option("--entry", o->entry, "The function to run (default: main, or the only public function)");
  cmd->add_option("--input", o->inputs, "A .npy file per parameter, in order (repeat the option)");
  cmd->add_option("--random-inputs", o->randomSeed, "Generate inputs from this seed instead");
  cmd->add_option(
      "--fill-elided", o->fillElided,
      "Fill constants the exporter left out (dense_resource<__elided__>) with random values "
      "drawn from this seed");
  cmd->add_option("--random-scale", o->randomScale, "Random floats are uniform in [-S, S) (default 1)")
      ->check(CLI::PositiveNumber);
  addCompileTierOption(cmd, o->tier);
  addMemoryLimitOption(cmd, o->memoryLimit);
  cmd->add_option("--time-limit", o->timeLimit,
                  "Stop the run with an error after this many seconds (checked between steps and loop iterations)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--output-dir", o->outputDir, "Write the results there as result_N.npy");
  cmd->add_option("--probe-dir", o->probeDir, "Folder for interpreter.probe output");
  cmd->add_flag("--no-print", o->noPrint, "Do not print the results");
  cmd->add_option("--backend", o->backend,
                  "cpu (default: native kernels where the backend has them, the interpreter for the rest) "
                  "or interp (the reference interpreter)");
  return [o] { return runRun(*o); };
}

}  // namespace kiln::tool
