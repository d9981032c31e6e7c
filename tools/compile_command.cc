// `kiln compile FILE`: run the optimization pipeline (or the passes named by --passes)
// and print the optimized module; --report summarizes what each pass did, the fusion
// decisions and the buffer figures; --dump-dir keeps every intermediate module. With
// --backend NAME the plugin compiles it instead, like any host would have it compiled
// (the cpu plugin: its pipeline, then the kernels' LLVM IR and assembly in the dump).
#include <iostream>
#include <optional>

#include "commands.h"
#include "ir/verifier.h"
#include "passes/fill_elided_constants.h"
#include "passes/memory_limit.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "passes/sharding/spmd_partition.h"
#include "runtime/client.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/atomic_file.h"
#include "support/error.h"

namespace kiln::tool {
namespace {

struct CompileCommandOptions {
  runtime::Optimization tier = runtime::Optimization::Full;
  std::string file;
  std::string entry;
  std::string passes;
  std::string dumpDir;
  std::string output;
  bool report = false;
  bool verifyEach = false;
  bool donate = false;
  int64_t foldLimit = passes::PipelineOptions{}.foldElementLimit;
  std::string backend;
  std::optional<uint64_t> fillElided;
  std::string memoryLimit;
  bool partition = false;
};

// --partition: the per-device program of the entry's shardings, before the pipeline; the
// report says over how many devices, which collectives, and why.
std::string partition(Module& module, const std::string& entry, passes::PassContext& context) {
  for (const char* pass : {"inline", "lower-chlo"}) passes::createPass(pass)->run(module, context);
  std::string name = entry;
  if (name.empty()) name = module.lookup("main") ? "main" : module.functions().empty() ? "" : module.functions()[0]->name();
  passes::PartitionReport r = passes::partitionModule(module, name);
  if (!r.partitioned) return "partitioning: @" + name + " gives no shardings; nothing to partition\n";
  const passes::CollectiveCounts& c = r.collectives;
  std::string out = "partitioning: @" + name + " over " + std::to_string(r.numDevices) + " device(s): " +
                    std::to_string(c.allReduce) + " all_reduce, " + std::to_string(c.reduceScatter) + " reduce_scatter, " +
                    std::to_string(c.allToAll) + " all_to_all, " + std::to_string(c.allGather) + " all_gather, " +
                    std::to_string(c.localSlices) + " local slice(s)\n";
  for (const std::string& note : r.notes) out += "  " + note + "\n";
  return out;
}

// The module of `source`, verified, with --fill-elided's constants filled.
std::unique_ptr<Module> readModule(const SourceRef& source, const CompileCommandOptions& o) {
  std::unique_ptr<Module> module = stablehlo::parseModule(source);
  verifyModule(*module);
  if (o.fillElided) passes::fillElidedConstants(*module, *o.fillElided);
  return module;
}

// With --backend: the plugin compiles the program (after the partitioner, with
// --partition) with its own pipeline, and says what it made: the module as it runs it,
// or with --report what it did (the cpu plugin: the passes, then each kernel); its dump
// dir gets what it generated (cpu: the modules after every pass, the kernels' LLVM IR
// and assembly).
int compileOnPlugin(const CompileCommandOptions& o) {
  const CompileCommandOptions defaults;
  std::string ownPipeline = !o.passes.empty()                ? "--passes"
                            : o.verifyEach                   ? "--verify-each"
                            : o.donate                       ? "--donate"
                            : o.foldLimit != defaults.foldLimit ? "--fold-limit"
                                                             : "";
  if (!ownPipeline.empty())
    throw Error(ErrorKind::Usage, ownPipeline + " sets kiln's own pipeline, which runs without --backend; with --backend " +
                                      o.backend + " the plugin compiles with its pipeline");
  const SourceRef source = readInput(o.file);
  std::string text(source->text());
  std::string partitionReport;
  if (o.partition) {
    std::unique_ptr<Module> module = readModule(source, o);
    passes::PassContext context;
    partitionReport = partition(*module, o.entry, context);
    text = stablehlo::printModule(*module);
  }
  const runtime::Client client(runtime::Plugin::load(o.backend), runtime::ClientOptions{1, 0});
  runtime::CompileOptions compile;
  compile.name = source->name();
  compile.entry = o.entry;
  compile.optimization = o.tier;
  compile.dumpDir = o.dumpDir;
  if (o.fillElided && !o.partition) compile.namedOptions.emplace_back("fill_elided_seed", std::to_string(*o.fillElided));
  if (const int64_t limit = memoryLimitOf(o.memoryLimit)) compile.namedOptions.emplace_back("memory_limit", std::to_string(limit));
  keepKernelsInTheCache(client, compile);
  const runtime::Executable executable = client.compile(text, compile);
  if (o.report) {
    std::cout << partitionReport << executable.text("report");
    return 0;
  }
  const std::string program = executable.text("program");
  if (!o.output.empty()) writeFileAtomically(o.output, program);
  else std::cout << program;
  return 0;
}

int runCompileCommand(const CompileCommandOptions& o) {
  if (!o.backend.empty()) return compileOnPlugin(o);
  std::unique_ptr<Module> module = readModule(readInput(o.file), o);
  if (!o.entry.empty()) {
    if (!module->lookup(o.entry)) throw Error(ErrorKind::Usage, "no function @" + o.entry + " in " + o.file);
    // Only the entry and what it calls survive: the others become private, and inlining
    // drops private functions nobody refers to.
    for (const auto& fn : module->functions())
      if (fn->name() != o.entry) fn->visibility = Visibility::Private;
  }
  passes::PassContext context;
  const std::string partitionReport = o.partition ? partition(*module, o.entry, context) : "";
  context.options.dumpDir = o.dumpDir;
  context.options.verifyEachPass = o.verifyEach;
  context.options.donateAllParameters = o.donate;
  context.options.foldElementLimit = o.foldLimit;
  passes::PipelineResult result = passes::runPipeline(*module, passes::parsePassList(o.passes), context);
  passes::checkMemoryLimit(*module, memoryLimitOf(o.memoryLimit));

  if (!o.output.empty()) writeFileAtomically(o.output, stablehlo::printModule(*module));
  if (o.report) std::cout << partitionReport << passes::pipelineReport(result, context);
  else if (o.output.empty()) std::cout << stablehlo::printModule(*module);
  return 0;
}

}  // namespace

std::function<int()> addCompileCommand(CLI::App& app) {
  auto o = std::make_shared<CompileCommandOptions>();
  CLI::App* cmd = app.add_subcommand("compile", "Optimize a program: inlining, simplification, folding, CSE, DCE, "
                                                "fusion, scheduling and buffer assignment");
  cmd->add_option("file", o->file, "StableHLO MLIR file (- for standard input)")->required();
  cmd->add_option("--entry", o->entry, "Optimize only this function (and what it calls)");
  std::string known;
  for (const std::string& n : passes::allPassNames()) known += (known.empty() ? "" : ", ") + n;
  cmd->add_option("--passes", o->passes,
                  "Comma-separated passes to run instead of the full pipeline (" + known +
                      "; fixpoint(a,b,...) repeats a group until nothing changes)");
  addCompileTierOption(cmd, o->tier);
  addMemoryLimitOption(cmd, o->memoryLimit);
  cmd->add_option("--dump-dir", o->dumpDir,
                  "Write the module after every pass (NN-pass.mlir), the fusion plan and the buffer assignment here; "
                  "with --backend cpu also the kernels' LLVM IR before and after optimization and their assembly");
  cmd->add_option("-o,--output", o->output, "Write the optimized module to this file");
  cmd->add_flag("--report", o->report, "Print a summary (passes, times, op counts, fusion decisions, buffers) "
                                       "instead of the module");
  cmd->add_option("--backend", o->backend,
                  "Compile with this plugin's own pipeline (cpu, interp, or another on KILN_PLUGIN_PATH) and print "
                  "the module it runs; with --report what it did (cpu: the passes, each kernel and each "
                  "interpreter fallback with its op and line)");
  cmd->add_flag("--partition", o->partition,
                "First partition the entry by its shardings (mhlo.sharding, sdy.sharding): the per-device program "
                "with its collectives; --report then explains each sharding choice with its op and line");
  cmd->add_flag("--verify-each", o->verifyEach, "Verify the module and check the buffer assignment after every pass");
  cmd->add_flag("--donate", o->donate, "Treat every parameter as donated (its buffer may hold results)");
  cmd->add_option("--fill-elided", o->fillElided,
                  "Fill constants the exporter left out (dense_resource<__elided__>) with random "
                  "values drawn from this seed");
  cmd->add_option("--fold-limit", o->foldLimit, "Fold ops whose results have at most this many elements")
      ->check(CLI::NonNegativeNumber);
  return [o] { return runCompileCommand(*o); };
}

}  // namespace kiln::tool
