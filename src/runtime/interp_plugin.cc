// libkiln_plugin_interp.so: the shared plugin implementation over the reference
// interpreter, which runs the program exactly as written (no optimization: the oracle
// the other plugins are compared with). Its serialized form is the module's text.
#include "interp/interpreter.h"
#include "runtime/plugin_api.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

// What starts every executable the interp plugin serializes (so that the cpu plugin's
// bytes, or anything else, are refused with a clear message rather than parsed).
constexpr std::string_view kMagic = "kiln interp executable 1\n";

class InterpProgram : public CompiledProgram {
 public:
  InterpProgram(std::shared_ptr<const Module> module, const std::string& entry)
      : module_(std::move(module)), entry_(entryFunction(*module_, entry)) {}
  const Module& module() const override { return *module_; }
  const Function& entry() const override { return entry_; }
  interp::HostValues run(const interp::HostValues& args, interp::ProcessContext* process,
                         const std::atomic<bool>* cancel) const override {
    // An interpreter per run: runs on several devices at once share nothing mutable.
    interp::InterpOptions options;
    options.process = process;
    options.cancel = cancel;
    interp::Interpreter interpreter(*module_, std::move(options));
    return interpreter.call(entry_, args);
  }
  std::string serialize() const override { return std::string(kMagic) + stablehlo::printModule(*module_); }
  std::shared_ptr<const CompiledProgram> withEntry(const std::string& name) const override {
    return std::make_shared<InterpProgram>(module_, name);
  }

 private:
  std::shared_ptr<const Module> module_;  // shared by its entries
  const Function& entry_;
};

class InterpBackend : public DeviceBackend {
 public:
  const char* name() const override { return "interp"; }
  std::string describeDevice(int id) const override {
    return "interp:" + std::to_string(id) + " (the reference interpreter: exact, slow)";
  }
  int defaultDeviceCount() const override { return deviceCountFromEnvironment(name()); }
  std::unique_ptr<CompiledProgram> compile(const SourceRef& source, const CompileSettings& settings) const override {
    return std::make_unique<InterpProgram>(stablehlo::parseModule(source), settings.entry);
  }
  std::unique_ptr<CompiledProgram> deserialize(std::string_view bytes, const std::string& entry) const override {
    if (!bytes.starts_with(kMagic))
      throw Error(ErrorKind::Io, "not an executable serialized by the interp plugin");
    bytes.remove_prefix(kMagic.size());
    return std::make_unique<InterpProgram>(
        stablehlo::parseModule(SourceBuffer::fromString("<serialized executable>", std::string(bytes))), entry);
  }
};

}  // namespace
}  // namespace kiln::runtime

extern "C" __attribute__((visibility("default"))) const KilnPluginApi* kiln_plugin_api(void) {
  static const kiln::runtime::InterpBackend backend;
  return kiln::runtime::pluginApi(backend);
}
