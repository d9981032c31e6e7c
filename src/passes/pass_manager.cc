#include "passes/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "ir/elided_constants.h"
#include "ir/verifier.h"
#include "passes/fixpoint.h"
#include "passes/passes.h"
#include "stablehlo/printer.h"
#include "support/atomic_file.h"
#include "support/byte_size.h"

namespace kiln::passes {
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& path, const std::string& text) { writeFileAtomically(path.string(), text); }

// A pass name as a file name: fixpoint(simplify,fold) -> fixpoint-simplify-fold, so dump
// files need no quoting in a shell.
std::string fileNameOf(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '(' || c == ',') out += '-';
    else if (c != ')') out += c;
  }
  return out;
}

}  // namespace

PassStats runPass(Pass& pass, Module& module, PassContext& context) {
  using Clock = std::chrono::steady_clock;
  PassStats stats{std::string(pass.name())};
  stats.opsBefore = countOps(module);
  auto start = Clock::now();
  stats.changed = pass.run(module, context);
  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  stats.opsAfter = countOps(module);
  // Groups are the one kind of pass with more to report than `changed`; asking for it
  // here keeps Pass itself the two-method interface every pass implements.
  if (const auto* group = dynamic_cast<const FixpointPass*>(&pass)) {
    stats.rounds = group->rounds();
    stats.converged = group->converged();
    stats.inner = group->runs();
  }
  if (context.options.verifyEachPass) {
    try {
      verifyModule(module);
    } catch (const Error& e) {
      throw Error(ErrorKind::Internal, "the module does not verify after pass '" + stats.name + "': " + e.format());
    }
  }
  return stats;
}

int64_t countOps(const Module& module) {
  int64_t n = 0;
  for (const auto& fn : module.functions()) walk(fn->body(), [&](Op&) { ++n; });
  return n;
}

PipelineResult runPipeline(Module& module, const std::vector<std::string>& passNames, PassContext& context) {
  // Every name is looked up before any pass runs: a typo leaves the module untouched.
  std::vector<std::unique_ptr<Pass>> passes;
  for (const std::string& name : passNames) passes.push_back(createPass(name));
  return runPipeline(module, std::move(passes), context);
}

PipelineResult runPipeline(Module& module, std::vector<std::unique_ptr<Pass>> passes, PassContext& context) {
  using Clock = std::chrono::steady_clock;
  // Passes read constants' values (folding, simplification): zeros standing in for elided
  // data would be optimized as if they were the program's.
  rejectElidedConstants(module);
  const std::string& dumpDir = context.options.dumpDir;
  if (!dumpDir.empty()) {
    fs::create_directories(dumpDir);
    writeFile(fs::path(dumpDir) / "00-input.mlir", stablehlo::printModule(module));
  }
  PipelineResult result;
  auto pipelineStart = Clock::now();
  for (size_t i = 0; i < passes.size(); ++i) {
    PassStats stats = runPass(*passes[i], module, context);
    if (!dumpDir.empty())
      writeFile(fs::path(dumpDir) / fmt::format("{:02}-{}.mlir", i + 1, fileNameOf(stats.name)),
                stablehlo::printModule(module));
    result.passes.push_back(std::move(stats));
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - pipelineStart).count();
  if (!dumpDir.empty()) {
    writeFile(fs::path(dumpDir) / "fusion-plan.txt", context.fusionPlan.str());
    std::string buffers;
    for (const BufferAssignment& b : context.buffers) buffers += b.str(1000) + "\n";
    writeFile(fs::path(dumpDir) / "buffer-assignment.txt", buffers);
  }
  return result;
}

std::string pipelineReport(const PipelineResult& result, const PassContext& context) {
  // Names in one column, as wide as the longest (fixpoint groups are long); inner runs of
  // a group are indented two more and numbered by round ("r2 fold").
  size_t width = 10;
  for (const PassStats& p : result.passes) {
    width = std::max(width, p.name.size());
    for (const PassStats& q : p.inner) width = std::max(width, q.name.size() + 6);
  }
  auto line = [&](const std::string& name, size_t indent, const PassStats& p) {
    return fmt::format("{:{}}{:<{}} {:8.3f} ms  ops {} -> {}  {}", "", indent, name, width + 2 - indent,
                       p.seconds * 1e3, p.opsBefore, p.opsAfter, p.changed ? "changed" : "unchanged");
  };
  std::string out = "passes:\n";
  for (const PassStats& p : result.passes) {
    out += line(p.name, 2, p);
    if (p.rounds > 0)
      out += fmt::format(", {} round{}{}", p.rounds, p.rounds == 1 ? "" : "s",
                         p.converged ? "" : " (stopped at the cap, still changing)");
    out += "\n";
    size_t perRound = p.rounds > 0 ? p.inner.size() / static_cast<size_t>(p.rounds) : 1;
    for (size_t i = 0; i < p.inner.size(); ++i)
      out += line(fmt::format("r{} {}", i / perRound + 1, p.inner[i].name), 4, p.inner[i]) + "\n";
  }
  out += fmt::format("  {:<{}} {:8.3f} ms\n", "total", width, result.seconds * 1e3);
  const FusionPlan& plan = context.fusionPlan;
  if (!plan.decisions.empty() || plan.kernelsBefore) {
    out += fmt::format("fusion: {} kernels before, {} after\n", plan.kernelsBefore, plan.kernelsAfter);
    for (const FusionDecision& d : plan.decisions)
      out += fmt::format("  {} {}: {}\n", d.fused ? "fused  " : "refused", d.what, d.why);
  }
  for (const BufferAssignment& b : context.buffers) {
    out += fmt::format("buffers of @{}: values {}, peak live {}, arena {}, in place {}\n", b.function,
                       formatBytes(b.totalValueBytes), formatBytes(b.peakLiveBytes), formatBytes(b.arenaBytes),
                       b.inPlaceReuses);
    size_t shown = 0;
    for (size_t i : b.liveAtPeak()) {
      if (shown++ == 3) break;
      const BufferedValue& v = b.values[i];
      std::string where = v.loc.fileLocation().isUnknown() ? "" : " at " + v.loc.fileLocation().str();
      out += fmt::format("  live at peak: {} {} from {}{}\n", formatBytes(v.bytes), v.value->type().str(),
                         v.producer, where);
    }
  }
  return out;
}

}  // namespace kiln::passes
