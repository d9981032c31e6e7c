// `kiln run FILE.mlir`: run one function on inputs from .npy files (or random ones) and
// print or save its results.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>

#include "commands.h"
#include "interp/array_print.h"
#include "runtime/client.h"
#include "runtime/compilation_cache.h"
#include "runtime/sharded_program.h"
#include "stablehlo/npy.h"
#include "support/disk_cache.h"
#include "support/error.h"

namespace kiln::tool {
namespace {

struct RunOptions {
  runtime::Optimization tier = runtime::Optimization::Full;
  std::string file;
  std::string entry;  // default: main, or the only public function
  std::vector<std::string> inputs;
  std::vector<std::string> infeed;  // .npy files queued on the device's infeed, in order
  std::optional<uint64_t> randomSeed;
  std::optional<uint64_t> fillElided;
  double randomScale = 1;
  std::string outputDir;
  std::string probeDir;
  bool noPrint = false;
  bool outputF32 = false;  // --output-dtype f32: float results saved as f32
  std::string backend = "cpu";
  std::string memoryLimit;
  double timeLimit = 0;  // seconds; 0: none
  bool partition = false;
  std::string communicator;      // empty: mpi when started by mpirun, else in_process
  double collectiveTimeout = 0;  // seconds; 0: the plugin's default
};

// The arguments of function `name` with parameters `params`: from the .npy files, or
// drawn from the seed (nullopt for a token).
std::vector<std::optional<Literal>> arguments(const RunOptions& o, const std::string& name, const std::vector<Type>& params) {
  std::vector<std::optional<Literal>> args;
  if (o.randomSeed) {
    if (!o.inputs.empty()) throw Error(ErrorKind::Usage, "give either --input files or --random-inputs, not both");
    std::mt19937_64 rng(*o.randomSeed);
    for (const Type& t : params)
      args.push_back(t.isToken() ? std::nullopt : std::optional<Literal>(randomInput(t, rng, o.randomScale)));
    return args;
  }
  if (o.inputs.size() != params.size()) {
    throw Error(ErrorKind::Usage, "@" + name + " takes " + std::to_string(params.size()) + " input(s) (" +
                                      str(params) + "), " + std::to_string(o.inputs.size()) +
                                      " given (use --input FILE.npy per input, or --random-inputs SEED)");
  }
  for (size_t i = 0; i < params.size(); ++i) {
    Literal value = stablehlo::readNpy(o.inputs[i], params[i].isTensor() ? std::optional(params[i].dtype()) : std::nullopt);
    if (value.type() != params[i])
      throw Error(ErrorKind::Type, "input " + std::to_string(i) + " (" + o.inputs[i] + ") is " + value.type().str() +
                                       ", but @" + name + " expects " + params[i].str());
    args.push_back(std::move(value));
  }
  return args;
}

// A floating-point value as f32 (exact from bf16, f16 and the narrower floats; f64 rounds).
Literal asF32(const Literal& value) {
  Literal wide(Type::tensor(DType::F32, value.shape()));
  for (int64_t i = 0; i < value.numElements(); ++i) wide.setFloat(i, value.floatAt(i));
  return wide;
}

// Prints and saves the results as the options say.
void report(const RunOptions& o, const std::vector<Type>& types, const std::vector<std::optional<Literal>>& values) {
  if (!o.outputDir.empty()) std::filesystem::create_directories(o.outputDir);
  for (size_t i = 0; i < values.size(); ++i) {
    if (!o.noPrint) {
      std::cout << "result " << i << ": " << types[i].str() << "\n";
      if (values[i]) std::cout << interp::formatArray(*values[i]) << "\n";
    }
    if (!o.outputDir.empty()) {
      if (!values[i]) throw Error(ErrorKind::Unsupported, "unsupported: saving a " + types[i].str() + " result");
      std::string path = (std::filesystem::path(o.outputDir) / ("result_" + std::to_string(i) + ".npy")).string();
      const bool widen = o.outputF32 && isFloat(values[i]->dtype()) && values[i]->dtype() != DType::F32;
      stablehlo::writeNpy(path, widen ? asF32(*values[i]) : *values[i]);
    }
  }
}

// --partition: the program's shardings partition it over their devices (runtime/
// sharded_program.h); each argument is split, each result assembled.
// Under MPI (mpirun -np N kiln run --partition) every rank runs this with the same
// inputs: it partitions the program alike, keeps its own device's pieces, and the
// program gathers the results, which rank 0 prints and saves.
int runPartitioned(const RunOptions& o, const SourceRef& source, runtime::CompileOptions compile,
                   const runtime::ExecuteOptions& run) {
  runtime::Communicator communicator = runtime::defaultCommunicator();
  if (o.communicator == "mpi") communicator = runtime::Communicator::Mpi;
  if (o.communicator == "in_process") communicator = runtime::Communicator::InProcess;
  const bool mpi = communicator == runtime::Communicator::Mpi;
  runtime::ShardedProgram program = runtime::partitionProgram(source->text(), source->name(), o.entry, mpi);
  runtime::ClientOptions clientOptions;
  clientOptions.numDevices = mpi ? 0 : static_cast<int>(program.report.numDevices);
  clientOptions.communicator = communicator;
  clientOptions.collectiveTimeout = o.collectiveTimeout;
  const runtime::Client client(runtime::Plugin::load(o.backend), clientOptions);
  const bool first = client.processIndex() == 0;
  if (first) {
    std::cerr << "partitioned over " << program.report.numDevices << " device(s)"
              << (mpi ? " (" + std::to_string(client.numProcesses()) + " MPI processes)" : std::string()) << ": "
              << program.report.collectives.total() << " collective(s)\n";
    for (const std::string& note : program.report.notes) std::cerr << "  " << note << "\n";
  }
  std::vector<Literal> args;
  for (std::optional<Literal>& a : arguments(o, o.entry.empty() ? "main" : o.entry, program.params)) {
    if (!a) throw Error(ErrorKind::Unsupported, "unsupported: token parameters in a partitioned program");
    args.push_back(std::move(*a));
  }
  std::vector<std::optional<Literal>> results;
  for (Literal& r : runtime::runSharded(client, program, args, compile, run)) results.emplace_back(std::move(r));
  if (first) report(o, program.results, results);
  return 0;
}

// Runs the program through the plugin named --backend, like any other host of the C API:
// compiled, or deserialized from the disk cache (runtime/compilation_cache.h), on the
// client's first device.
int runRun(const RunOptions& o) {
  const SourceRef source = readInput(o.file);
  runtime::CompileOptions compile;
  compile.name = source->name();
  compile.entry = o.entry;
  compile.optimization = o.tier;
  if (o.fillElided) compile.namedOptions.emplace_back("fill_elided_seed", std::to_string(*o.fillElided));
  if (const int64_t limit = memoryLimitOf(o.memoryLimit)) compile.namedOptions.emplace_back("memory_limit", std::to_string(limit));
  if (!o.probeDir.empty()) compile.namedOptions.emplace_back("probe_dir", o.probeDir);
  runtime::ExecuteOptions run;
  if (o.timeLimit > 0) run.timeLimit = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(o.timeLimit));
  if (o.partition) {
    if (!o.infeed.empty()) throw Error(ErrorKind::Unsupported, "unsupported: --infeed with --partition");
    return runPartitioned(o, source, compile, run);
  }

  // Every infeed value is queued before the run: a program that reads more fails when
  // it finds the infeed empty (the client's default), rather than waiting.
  const runtime::Client client(runtime::Plugin::load(o.backend), runtime::ClientOptions{1, 0});
  const runtime::Device device = client.devices().at(0);
  for (const std::string& file : o.infeed) device.infeed(stablehlo::readNpy(file));
  const runtime::Executable executable = compileProgram(client, source->text(), compile).executable;
  reportFallbacks(executable);
  const runtime::ExecutableInfo info = executable.info();

  std::vector<runtime::Buffer> args;
  for (const std::optional<Literal>& a : arguments(o, info.name, info.parameters))
    args.push_back(a ? client.bufferFromHost(*a, device) : client.token(device));
  std::vector<const runtime::Buffer*> argPointers;
  for (const runtime::Buffer& arg : args) argPointers.push_back(&arg);
  const runtime::Executable::Execution execution = executable.execute(argPointers, device, run);
  try {
    execution.done.await();
  } catch (const Error& e) {
    if (std::string(e.what()).find("the device's infeed is empty") != std::string::npos)
      std::cerr << "note: give the program's infeed values with --infeed FILE.npy, in order (" << o.infeed.size()
                << " given)\n";
    throw;
  }
  std::vector<std::optional<Literal>> results;
  for (size_t i = 0; i < execution.outputs.size(); ++i)
    results.push_back(info.results[i].isTensor() ? std::optional<Literal>(execution.outputs[i].toLiteral()) : std::nullopt);
  report(o, info.results, results);
  return 0;
}

}  // namespace

std::function<int()> addRunCommand(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a function of a StableHLO file on a plugin's device (cpu by default)");
  cmd->add_option("file", o->file, "The .mlir file, or - for standard input")->required();
  cmd->add_option("--entry", o->entry, "The function to run (default: main, or the only public function)");
  cmd->add_option("--input", o->inputs, "A .npy file per parameter, in order (repeat the option)");
  cmd->add_option("--random-inputs", o->randomSeed, "Generate inputs from this seed instead");
  cmd->add_option("--infeed", o->infeed,
                  "A .npy file queued on the device's infeed before the run (repeat the option: the program's "
                  "infeed ops take them in order; one that finds none left fails)");
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
  cmd->add_option_function<std::string>(
         "--output-dtype", [o](const std::string&) { o->outputF32 = true; },
         "f32: save floating-point results as f32 .npy files (bf16 and the f8 types are saved under their "
         "ml_dtypes names otherwise, which plain NumPy cannot load)")
      ->check(CLI::IsMember({"f32"}));
  cmd->add_option("--probe-dir", o->probeDir, "Folder for interpreter.probe output");
  cmd->add_flag("--no-print", o->noPrint, "Do not print the results");
  cmd->add_flag("--partition", o->partition,
                "Partition the program by its shardings (mhlo.sharding, sdy.sharding) and run it on one device "
                "per partition, splitting each input and assembling each result");
  cmd->add_option("--communicator", o->communicator,
                  "With --partition: how the devices exchange values: in_process (one process holds them all), or mpi "
                  "(each process of `mpirun -np N` is one device; the default when started by mpirun)")
      ->check(CLI::IsMember({"in_process", "mpi"}));
  cmd->add_option("--collective-timeout", o->collectiveTimeout,
                  "With the mpi communicator: seconds a collective waits for ranks that do not arrive before it "
                  "ends the job (default 300)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--backend", o->backend,
                  "The plugin to run on: cpu (the default: native code), interp (the reference interpreter), "
                  "or another on KILN_PLUGIN_PATH (kiln devices lists them)");
  return [o] { return runRun(*o); };
}

}  // namespace kiln::tool
