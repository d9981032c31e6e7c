// The public API (include/kiln/kiln.h) forwarding to the internal layers: it sits on top
// of everything, like tools/, and turns kiln::Error into ApiError so that no internal
// type crosses the public header.
#include "kiln/program.h"
#include "support/api_errors.h"

#include <mutex>

#include "interp/interpreter.h"
#include "ir/verifier.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln {

struct Program::Impl {
  std::unique_ptr<Module> module;
  std::once_flag verified;
};

namespace {

std::unique_ptr<Module> parseOne(const SourceRef& source) {
  stablehlo::ParseOptions options;
  options.verify = false;  // verify() is its own step
  std::vector<std::unique_ptr<Module>> modules = stablehlo::parseFile(source, options);
  if (modules.size() != 1)
    throw Error(ErrorKind::Usage, source->name() + " holds " + std::to_string(modules.size()) +
                                      " modules ('// -----'); a Program is one");
  return std::move(modules[0]);
}

Literal toLiteral(const HostArray& a, size_t index) {
  std::optional<DType> dtype = parseDType(a.dtype());
  if (!dtype) throw Error(ErrorKind::Usage, "input " + std::to_string(index) + ": unknown dtype '" + a.dtype() + "'");
  Type type = Type::tensor(*dtype, a.dims());
  if (static_cast<int64_t>(a.bytes().size()) != type.byteSize())
    throw Error(ErrorKind::Usage, "input " + std::to_string(index) + ": " + type.str() + " takes " +
                                      std::to_string(type.byteSize()) + " bytes, " +
                                      std::to_string(a.bytes().size()) + " given");
  return Literal::fromStorage(type, a.bytes());
}

HostArray toHostArray(const interp::HostValue& v, size_t index) {
  if (!v.isTensor()) throwUnsupported("result " + std::to_string(index) + " of type " + v.type().str());
  const Literal& lit = v.tensor();
  const uint8_t* bytes = lit.storage();
  size_t n = static_cast<size_t>(lit.type().byteSize());
  return HostArray(std::string(name(lit.dtype())), lit.type().shape(),
                   bytes ? std::vector<uint8_t>(bytes, bytes + n) : std::vector<uint8_t>(n));
}

}  // namespace

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

Program Program::parse(std::string_view text, const std::string& name) {
  return translated([&] {
    auto impl = std::make_unique<Impl>();
    impl->module = parseOne(SourceBuffer::fromString(name, std::string(text)));
    return Program(std::move(impl));
  });
}

Program Program::load(const std::string& path) {
  return translated([&] {
    auto impl = std::make_unique<Impl>();
    impl->module = parseOne(SourceBuffer::fromFile(path));
    return Program(std::move(impl));
  });
}

void Program::verify() const {
  translated([&] { std::call_once(impl_->verified, [&] { verifyModule(*impl_->module); }); });
}

std::vector<std::string> Program::functions() const {
  std::vector<std::string> names;
  for (const auto& fn : impl_->module->functions()) names.push_back(fn->name());
  return names;
}

std::vector<HostArray> Program::run(const std::vector<HostArray>& inputs, const std::string& entry) const {
  verify();
  return translated([&] {
    const Module& module = *impl_->module;
    const Function* fn = module.lookup(entry);
    if (!fn) throw Error(ErrorKind::Usage, "no function @" + entry + " in the program");
    if (inputs.size() != fn->numParams())
      throw Error(ErrorKind::Usage, "@" + entry + " takes " + std::to_string(fn->numParams()) + " input(s), " +
                                        std::to_string(inputs.size()) + " given");
    interp::HostValues args;
    for (size_t i = 0; i < inputs.size(); ++i) args.emplace_back(toLiteral(inputs[i], i));
    interp::InterpOptions options;
    options.print = [](const std::string&) {};  // a library does not write to stdout
    interp::Interpreter interpreter(module, options);
    interp::HostValues results = interpreter.call(*fn, args);  // checks the input types
    std::vector<HostArray> out;
    for (size_t i = 0; i < results.size(); ++i) out.push_back(toHostArray(results[i], i));
    return out;
  });
}

std::string Program::optimize(const std::string& passes) {
  verify();
  return translated([&] {
    std::vector<std::string> names = passes::parsePassList(passes);
    passes::PassContext context;
    passes::PipelineResult result = passes::runPipeline(*impl_->module, names, context);
    // The pipeline keeps programs valid; checking costs little next to it and keeps
    // run()'s "verified" promise honest.
    verifyModule(*impl_->module);
    return passes::pipelineReport(result, context);
  });
}

std::string Program::print(bool generic) const {
  return translated([&] {
    stablehlo::PrintOptions options;
    options.generic = generic;
    return stablehlo::printModule(*impl_->module, options);
  });
}

}  // namespace kiln
