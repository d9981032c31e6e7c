// `kiln compile FILE`: run the optimization pipeline (or the passes named by --passes)
// and print the optimized module; --report summarizes what each pass did, the fusion
// decisions and the buffer figures; --dump-dir keeps every intermediate module (and,
// with --backend cpu, the kernels' LLVM IR and assembly).
#include <iostream>
#include <optional>

#include "support/disk_cache.h"
#include "backends/cpu/executable.h"
#include "commands.h"
#include "ir/verifier.h"
#include "passes/fill_elided_constants.h"
#include "passes/memory_limit.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "passes/sharding/spmd_partition.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/atomic_file.h"
#include "support/error.h"

namespace kiln::tool {
namespace {

struct CompileCommandOptions {
  cpu::CompileTier tier = cpu::CompileTier::Optimized;
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

int runCompileCommand(const CompileCommandOptions& o) {
  std::unique_ptr<Module> module = stablehlo::parseModule(readInput(o.file));
  verifyModule(*module);
  if (o.fillElided) passes::fillElidedConstants(*module, *o.fillElided);
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
  if (!o.backend.empty() && o.backend != "cpu")
    throw Error(ErrorKind::Usage, "unknown backend '" + o.backend + "' (available: cpu)");
  std::vector<std::string> names =
      o.backend == "cpu" && o.passes.empty() ? cpu::cpuPipeline() : passes::parsePassList(o.passes);
  passes::PipelineResult result = passes::runPipeline(*module, names, context);
  passes::checkMemoryLimit(*module, memoryLimitOf(o.memoryLimit));

  if (!o.output.empty()) writeFileAtomically(o.output, stablehlo::printModule(*module));
  // The cpu backend compiles the kernels when asked for their report or their dumps.
  std::unique_ptr<cpu::Executable> executable;
  if (o.backend == "cpu" && (o.report || !o.dumpDir.empty()))
    executable = std::make_unique<cpu::Executable>(*module, cpu::CompileOptions{o.dumpDir, defaultCacheDir(), o.tier});
  if (o.report) {
    std::cout << partitionReport << passes::pipelineReport(result, context);
    if (executable) std::cout << executable->report();
  } else if (o.output.empty()) {
    std::cout << stablehlo::printModule(*module);
  }
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
                  "cpu: the cpu pipeline, then compile; with --report, each kernel and each interpreter "
                  "fallback with its op and line");
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
