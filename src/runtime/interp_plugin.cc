// libkiln_plugin_interp.so: the shared plugin implementation over the reference
// interpreter, which runs the program exactly as written (no optimization: the oracle
// the other plugins are compared with). Its serialized form is the module's text as written.
#include <optional>
#include <string>

#include "interp/interpreter.h"
#include "passes/fill_elided_constants.h"
#include "passes/flatten_entry_tuples.h"
#include "passes/memory_limit.h"
#include "runtime/pjrt/pjrt_api.h"
#include "stablehlo/parser.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

// What starts every executable the interp plugin serializes (so that the cpu plugin's
// bytes, or anything else, are refused with a clear message rather than parsed).
constexpr std::string_view kMagic = "kiln interp executable 2\n";

// The module of `source`, prepared as `fillElidedSeed` says.
std::shared_ptr<const Module> parsePrepared(const SourceRef& source, std::optional<uint64_t> fillElidedSeed) {
  std::shared_ptr<Module> module = stablehlo::parseModule(source);
  passes::flattenEntryTuples(*module);  // PJRT passes arrays, not tuples
  if (fillElidedSeed) passes::fillElidedConstants(*module, *fillElidedSeed);
  return module;
}

class InterpProgram : public CompiledProgram {
 public:
  InterpProgram(SourceRef source, std::optional<uint64_t> fillElidedSeed, const std::string& entry, std::string probeDir)
      : source_(std::move(source)),
        fillElidedSeed_(fillElidedSeed),
        module_(parsePrepared(source_, fillElidedSeed)),
        entry_(entryFunction(*module_, entry)),
        probeDir_(std::move(probeDir)) {}
  InterpProgram(const InterpProgram& other, const std::string& entry)
      : source_(other.source_),
        fillElidedSeed_(other.fillElidedSeed_),
        module_(other.module_),
        entry_(entryFunction(*module_, entry)),
        probeDir_(other.probeDir_) {}

  const Module& module() const override { return *module_; }
  const Function& entry() const override { return entry_; }
  interp::HostValues run(const interp::HostValues& args, const RunControl& control) const override {
    // An interpreter per run: runs on several devices at once share nothing mutable.
    interp::Interpreter interpreter(*module_, control.interpOptions(probeDir_));
    return interpreter.call(entry_, args);
  }
  // The text as written and its name (so that a deserialized program's errors point
  // into the same file at the same lines), and how it was prepared: the magic, the
  // name's length, the name, the seed ("-" for none), a newline, the text.
  std::string serialize() const override {
    return std::string(kMagic) + std::to_string(source_->name().size()) + "\n" + source_->name() +
           (fillElidedSeed_ ? std::to_string(*fillElidedSeed_) : std::string("-")) + "\n" + std::string(source_->text());
  }
  static std::unique_ptr<InterpProgram> deserialize(std::string_view bytes, const std::string& entry) {
    auto refuse = [] { throw Error(ErrorKind::Io, "not an executable serialized by this interp plugin, or damaged"); };
    if (!bytes.starts_with(kMagic)) refuse();
    bytes.remove_prefix(kMagic.size());
    auto number = [&](std::string_view digits) -> std::optional<uint64_t> {
      if (digits.empty() || digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
      return std::stoull(std::string(digits));
    };
    const size_t lengthEnd = bytes.find('\n');
    const std::optional<uint64_t> nameSize = lengthEnd == std::string_view::npos ? std::nullopt : number(bytes.substr(0, lengthEnd));
    if (!nameSize || *nameSize > bytes.size() - lengthEnd - 1) refuse();
    const std::string name(bytes.substr(lengthEnd + 1, *nameSize));
    bytes.remove_prefix(lengthEnd + 1 + *nameSize);
    const size_t seedEnd = bytes.find('\n');
    if (seedEnd == std::string_view::npos) refuse();
    const std::string_view seedText = bytes.substr(0, seedEnd);
    std::optional<uint64_t> seed = number(seedText);
    if (!seed && seedText != "-") refuse();
    bytes.remove_prefix(seedEnd + 1);
    return std::make_unique<InterpProgram>(SourceBuffer::fromString(name, std::string(bytes)), seed, entry, "");
  }
  std::shared_ptr<const CompiledProgram> withEntry(const std::string& name) const override {
    return std::make_shared<InterpProgram>(*this, name);
  }

 private:
  SourceRef source_;
  std::optional<uint64_t> fillElidedSeed_;
  std::shared_ptr<const Module> module_;  // shared by its entries
  const Function& entry_;
  std::string probeDir_;
};

class InterpBackend : public DeviceBackend {
 public:
  const char* name() const override { return "interp"; }
  std::string describeDevice(int id) const override {
    return "interp:" + std::to_string(id) + " (the reference interpreter: exact, slow)";
  }
  int defaultDeviceCount() const override { return deviceCountFromEnvironment(name()); }
  std::unique_ptr<CompiledProgram> compile(const SourceRef& source, const CompileSettings& settings) const override {
    // The optimization level means nothing to an interpreter of the program as written.
    auto program = std::make_unique<InterpProgram>(source, settings.fillElidedSeed, settings.entry, settings.probeDir);
    passes::checkMemoryLimit(program->module(), settings.memoryLimit);
    return program;
  }
  // (Its serialized form holds the text: `source` adds nothing.)
  std::unique_ptr<CompiledProgram> deserialize(std::string_view bytes, const std::string& entry,
                                               SourceRef) const override {
    return InterpProgram::deserialize(bytes, entry);
  }
};

}  // namespace
}  // namespace kiln::runtime

namespace {
const kiln::runtime::InterpBackend& servedBackend() {
  static const kiln::runtime::InterpBackend backend;
  return backend;
}
}  // namespace

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  return kiln::runtime::pjrtApi(servedBackend());
}
