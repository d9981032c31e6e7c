// libkiln_plugin_cpu.so: the shared plugin implementation over the CPU backend (the
// optimizer's pipeline, LLVM kernels through ORC, BLAS). Its devices are the host's
// cores, shared: $KILN_CPU_DEVICES of them (default 1) so that multi-device programs
// run on one machine.
#include "backends/cpu/executable.h"
#include "backends/cpu/program_cache.h"
#include "backends/cpu/threads.h"
#include "passes/fill_elided_constants.h"
#include "runtime/plugin_api.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

class CpuProgram : public CompiledProgram {
 public:
  CpuProgram(std::shared_ptr<const cpu::Executable> executable, const std::string& entry, std::string probeDir)
      : executable_(std::move(executable)), entry_(entryFunction(executable_->module(), entry)), probeDir_(std::move(probeDir)) {}
  const Module& module() const override { return executable_->module(); }
  const Function& entry() const override { return entry_; }
  interp::HostValues run(const interp::HostValues& args, const RunControl& control) const override {
    return executable_->call(entry_, args, control.interpOptions(probeDir_));
  }
  std::string serialize() const override { return executable_->serialize(); }
  std::shared_ptr<const CompiledProgram> withEntry(const std::string& name) const override {
    return std::make_shared<CpuProgram>(executable_, name, probeDir_);
  }
  std::vector<std::pair<std::string, double>> statistics() const override {
    std::vector<std::pair<std::string, double>> values = {
        {"native_kernels", static_cast<double>(executable_->numKernels())},
        {"blas_ops", static_cast<double>(executable_->numBlasOps())},
        {"compile_seconds", executable_->compileSeconds()},
        {"kernel_runs", static_cast<double>(executable_->nativeRuns())},
        {"interpreted_ops", static_cast<double>(executable_->native().declined.size())}};
    for (const auto& [reason, count] : executable_->declinedReasons())
      values.emplace_back("interpreted: " + reason, static_cast<double>(count));
    return values;
  }

 private:
  std::shared_ptr<const cpu::Executable> executable_;  // owns its module; shared by its entries
  const Function& entry_;
  std::string probeDir_;
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
    if (settings.fillElidedSeed)
      how.prepare = [seed = *settings.fillElidedSeed](Module& m) { passes::fillElidedConstants(m, seed); };
    return std::make_unique<CpuProgram>(cpu::compileSource(source, how).executable, settings.entry, settings.probeDir);
  }
  std::unique_ptr<CompiledProgram> deserialize(std::string_view bytes, const std::string& entry) const override {
    return std::make_unique<CpuProgram>(cpu::Executable::deserialize(bytes), entry, "");
  }
};

}  // namespace
}  // namespace kiln::runtime

extern "C" __attribute__((visibility("default"))) const KilnPluginApi* kiln_plugin_api(void) {
  static const kiln::runtime::CpuBackend backend;
  return kiln::runtime::pluginApi(backend);
}
