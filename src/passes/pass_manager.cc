#include "passes/pass_manager.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "ir/verifier.h"
#include "passes/passes.h"
#include "stablehlo/printer.h"

namespace kiln::passes {
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw Error(ErrorKind::Io, "cannot write '" + path.string() + "'");
}

}  // namespace

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
  const std::string& dumpDir = context.options.dumpDir;
  if (!dumpDir.empty()) {
    fs::create_directories(dumpDir);
    writeFile(fs::path(dumpDir) / "00-input.mlir", stablehlo::printModule(module));
  }
  PipelineResult result;
  auto pipelineStart = Clock::now();
  int64_t ops = countOps(module);
  for (size_t i = 0; i < passes.size(); ++i) {
    Pass& pass = *passes[i];
    PassStats stats{std::string(pass.name())};
    stats.opsBefore = ops;
    auto start = Clock::now();
    pass.run(module, context);
    stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    ops = countOps(module);
    stats.opsAfter = ops;
    if (context.options.verifyEachPass) {
      try {
        verifyModule(module);
      } catch (const Error& e) {
        throw Error(ErrorKind::Internal, "the module does not verify after pass '" + stats.name + "': " + e.format());
      }
    }
    if (!dumpDir.empty())
      writeFile(fs::path(dumpDir) / fmt::format("{:02}-{}.mlir", i + 1, stats.name), stablehlo::printModule(module));
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

namespace {

std::string bytesStr(int64_t bytes) {
  if (bytes >= (int64_t{1} << 30)) return fmt::format("{:.2f} GiB", bytes / double(int64_t{1} << 30));
  if (bytes >= (1 << 20)) return fmt::format("{:.2f} MiB", bytes / double(1 << 20));
  if (bytes >= (1 << 10)) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

}  // namespace

std::string pipelineReport(const PipelineResult& result, const PassContext& context) {
  std::string out = "passes:\n";
  for (const PassStats& p : result.passes)
    out += fmt::format("  {:<10} {:8.3f} ms  ops {} -> {}\n", p.name, p.seconds * 1e3, p.opsBefore, p.opsAfter);
  out += fmt::format("  total      {:8.3f} ms\n", result.seconds * 1e3);
  const FusionPlan& plan = context.fusionPlan;
  if (!plan.decisions.empty() || plan.kernelsBefore) {
    out += fmt::format("fusion: {} kernels before, {} after\n", plan.kernelsBefore, plan.kernelsAfter);
    for (const FusionDecision& d : plan.decisions)
      out += fmt::format("  {} {}: {}\n", d.fused ? "fused  " : "refused", d.what, d.why);
  }
  for (const BufferAssignment& b : context.buffers) {
    out += fmt::format("buffers of @{}: values {}, peak live {}, arena {}, in place {}\n", b.function,
                       bytesStr(b.totalValueBytes), bytesStr(b.peakLiveBytes), bytesStr(b.arenaBytes),
                       b.inPlaceReuses);
    size_t shown = 0;
    for (size_t i : b.liveAtPeak()) {
      if (shown++ == 3) break;
      const BufferedValue& v = b.values[i];
      std::string where = v.loc.fileLocation().isUnknown() ? "" : " at " + v.loc.fileLocation().str();
      out += fmt::format("  live at peak: {} {} from {}{}\n", bytesStr(v.bytes), v.value->type().str(),
                         v.producer, where);
    }
  }
  return out;
}

}  // namespace kiln::passes
