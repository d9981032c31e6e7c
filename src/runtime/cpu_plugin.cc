// libkiln_plugin_cpu.so: the shared plugin implementation over the CPU backend (the
// optimizer's pipeline, LLVM kernels through ORC, BLAS). Its devices are the host's
// cores, shared: $KILN_CPU_DEVICES of them (default 1) so that multi-device programs
// run on one machine.
#include "backends/cpu/executable.h"
#include "backends/cpu/profile.h"
#include "backends/cpu/program_cache.h"
#include "backends/cpu/threads.h"
#include "passes/fill_elided_constants.h"
#include "passes/flatten_entry_tuples.h"
#include "runtime/pjrt/pjrt_api.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

class CpuProgram : public CompiledProgram {
 public:
  // `pipelineReport`: what the pipeline did (empty for a deserialized program); with
  // `profile`, each run records its steps.
  CpuProgram(std::shared_ptr<const cpu::Executable> executable, const std::string& entry, std::string probeDir,
             std::string pipelineReport = "", bool profile = false)
      : executable_(std::move(executable)),
        entry_(entryFunction(executable_->module(), entry)),
        probeDir_(std::move(probeDir)),
        pipelineReport_(std::move(pipelineReport)),
        profile_(profile ? std::make_shared<cpu::Profile>(executable_->module()) : nullptr) {}
  const Module& module() const override { return executable_->module(); }
  const Function& entry() const override { return entry_; }
  interp::HostValues run(const interp::HostValues& args, const RunControl& control) const override {
    if (!profile_) return executable_->call(entry_, args, control.interpOptions(probeDir_), nullptr, control.donated);
    // Runs on several devices at once record side by side (the processes of one
    // execution wait for each other in their collectives: no lock may keep them apart).
    const double start = profile_->now();
    interp::HostValues results =
        executable_->call(entry_, args, control.interpOptions(probeDir_), profile_.get(), control.donated);
    profile_->run(start, profile_->now());
    return results;
  }
  std::string serialize() const override { return executable_->serialize(); }
  std::shared_ptr<const CompiledProgram> withEntry(const std::string& name) const override {
    auto other = std::make_shared<CpuProgram>(executable_, name, probeDir_, pipelineReport_);
    other->profile_ = profile_;
    return other;
  }
  std::vector<std::pair<std::string, double>> statistics() const override {
    std::vector<std::pair<std::string, double>> values = {
        {"native_kernels", static_cast<double>(executable_->numKernels())},
        {"blas_ops", static_cast<double>(executable_->numBlasOps())},
        {"compile_seconds", executable_->compileSeconds()},
        {"kernel_runs", static_cast<double>(executable_->nativeRuns())},
        {"results_in_donated_buffers", static_cast<double>(executable_->resultsInDonatedBuffers())},
        {"interpreted_ops", static_cast<double>(executable_->native().declined.size())},
        {"interpreted_functions", static_cast<double>(executable_->numInterpretedFunctions())},
        {"threads", static_cast<double>(cpu::threadCount())}};
    for (const auto& [reason, count] : executable_->declinedReasons())
      values.emplace_back("interpreted: " + reason, static_cast<double>(count));
    return values;
  }
  std::optional<std::string> text(const std::string& name) const override {
    if (name == "report") return pipelineReport_ + executable_->report();
    if (name == "fallbacks") {
      std::string lines;
      for (const std::string& line : executable_->fallbacks()) lines += line + "\n";
      return lines;
    }
    if (profile_ && (name == "profile" || name == "profile_summary")) {
      const cpu::Profile& p = *profile_;  // (it locks itself against runs recording)
      return name == "profile" ? p.chromeTrace() : p.summary(10);
    }
    return CompiledProgram::text(name);
  }
  std::vector<std::string> textNames() const override {
    std::vector<std::string> names = {"program", "report", "fallbacks"};
    if (profile_) names.insert(names.end(), {"profile", "profile_summary"});
    return names;
  }

 private:
  std::shared_ptr<const cpu::Executable> executable_;  // owns its module; shared by its entries
  const Function& entry_;
  std::string probeDir_;
  std::string pipelineReport_;
  std::shared_ptr<cpu::Profile> profile_;  // shared by its entries; null: not profiled
};

class CpuBackend : public DeviceBackend {
 public:
  const char* name() const override { return "cpu"; }
  std::string describeDevice(int id) const override {
    return "cpu:" + std::to_string(id) + " (LLVM kernels on the host's " + std::to_string(cpu::threadCount()) +
           " kernel threads, shared by every cpu device)";
  }
  int defaultDeviceCount() const override { return deviceCountFromEnvironment(name()); }
  std::unique_ptr<CompiledProgram> compile(const SourceRef& source, const CompileSettings& settings) const override {
    // No disk cache: a host that wants warm starts keeps serialized executables itself.
    cpu::SourceCompile how;
    how.options.dumpDir = settings.dumpDir;
    how.options.memoryLimit = settings.memoryLimit;  // checked before LLVM spends its time
    using Optimization = CompileSettings::Optimization;
    how.options.tier = settings.optimization == Optimization::Fast     ? cpu::CompileTier::Fast
                       : settings.optimization == Optimization::Tiered ? cpu::CompileTier::Tiered
                                                                       : cpu::CompileTier::Optimized;
    how.options.cacheDir = settings.kernelCacheDir;  // kernels only: the host keeps executables
    how.cacheWholeProgram = false;
    // PJRT passes arrays: tuples at the entry's boundary (MHLO-era exports) become their leaves.
    how.prepare = [seed = settings.fillElidedSeed](Module& m) {
      passes::flattenEntryTuples(m);
      if (seed) passes::fillElidedConstants(m, *seed);
    };
    cpu::CompiledSource compiled = cpu::compileSource(source, how);
    return std::make_unique<CpuProgram>(std::move(compiled.executable), settings.entry, settings.probeDir,
                                        std::move(compiled.pipelineReport), settings.profile);
  }
  std::unique_ptr<CompiledProgram> deserialize(std::string_view bytes, const std::string& entry,
                                               SourceRef source) const override {
    return std::make_unique<CpuProgram>(cpu::Executable::deserialize(bytes, std::move(source)), entry, "");
  }
  bool profiles() const override { return true; }
};

}  // namespace
}  // namespace kiln::runtime

namespace {
const kiln::runtime::CpuBackend& servedBackend() {
  static const kiln::runtime::CpuBackend backend;
  return backend;
}
}  // namespace

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  return kiln::runtime::pjrtApi(servedBackend());
}
