// libFuzzer target for parse -> verify -> optimize -> interpret on small programs: every
// public function runs on zeros, before and after the default pipeline, under a time
// limit. Any input may be refused or fail with a kiln::Error (bad text, an unsupported
// op, a failing check, the time limit); anything else (a crash, a sanitizer report,
// another exception, a hang) is a bug. Programs whose buffers need more than 64 MiB are
// skipped, so the fuzzer looks for bugs rather than for memory. KILN_FUZZ_VERBOSE=1
// prints the errors.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "interp/interpreter.h"
#include "ir/verifier.h"
#include "passes/memory_limit.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "stablehlo/parser.h"
#include "support/error.h"

namespace {

// Runs every public function whose parameters are tensors (on zeros); a failing one
// (a kiln::Error) does not stop the others.
void runPublicFunctions(const kiln::Module& module) {
  for (const auto& fn : module.functions()) {
    if (fn->visibility != kiln::Visibility::Public) continue;
    kiln::interp::HostValues args;
    bool tensors = true;
    for (const kiln::Type& t : fn->paramTypes()) {
      tensors &= t.isTensor();
      if (tensors) args.push_back(kiln::Literal(t));
    }
    if (!tensors) continue;
    kiln::interp::InterpOptions options;
    options.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    options.print = [](const std::string&) {};
    try {
      kiln::interp::Interpreter(module, options).call(*fn, args);
    } catch (const kiln::Error& e) {
      if (std::getenv("KILN_FUZZ_VERBOSE")) std::fprintf(stderr, "@%s: %s\n", fn->name().c_str(), e.what());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::unique_ptr<kiln::Module> module =
        kiln::stablehlo::parseModule(kiln::SourceBuffer::fromString("fuzz.mlir", std::move(text)));
    kiln::verifyModule(*module);
    kiln::passes::checkMemoryLimit(*module, int64_t{64} << 20);
    runPublicFunctions(*module);
    kiln::passes::PassContext context;
    kiln::passes::runPipeline(*module, kiln::passes::defaultPipeline(), context);
    runPublicFunctions(*module);
  } catch (const kiln::Error& e) {
    if (std::getenv("KILN_FUZZ_VERBOSE")) std::fprintf(stderr, "%s\n", e.format().c_str());
  }
  return 0;
}
