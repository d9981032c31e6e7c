#include "runtime/plain_stablehlo.h"

#include <memory>

#include "ir/ir.h"
#include "ir/module.h"
#include "passes/pass.h"
#include "passes/passes.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::runtime {

std::string plainStableHlo(std::string_view text, const std::string& name, const std::string& entry,
                           const std::string& plugin) {
  std::unique_ptr<Module> module = stablehlo::parseModule(SourceBuffer::fromString(name, std::string(text)));
  passes::PassContext context;
  const bool lowered = passes::createLowerChloPass()->run(*module, context);
  for (const auto& fn : module->functions())
    walk(fn->body(), [&](Op& op) {
      const std::string_view opName = op.name();
      if (opName.starts_with("stablehlo.") || opName.starts_with("chlo.") || opName.starts_with("func.")) return;
      throw Error(ErrorKind::Unsupported,
                  "unsupported: " + std::string(opName) + " is kiln's own: plugin '" + plugin +
                      "' has no kiln extension and takes plain StableHLO",
                  module->source, op.pos);
    });
  if ((entry.empty() || entry == "main") && !lowered) return std::string(text);
  if (entry.empty() || entry == "main") return stablehlo::printModule(*module);
  const Function* chosen = module->lookup(entry);
  if (!chosen) throw Error(ErrorKind::Usage, "no function @" + entry + " in " + name);
  if (module->lookup("main"))
    throw Error(ErrorKind::Unsupported, "unsupported: entering " + name + " at @" + entry + " on plugin '" + plugin +
                                            "', which has no kiln extension and enters a module at its @main");
  std::unique_ptr<Function> main = chosen->clone("main");
  for (const auto& fn : module->functions()) fn->visibility = Visibility::Private;
  main->visibility = Visibility::Public;
  module->addFunction(std::move(main));
  return stablehlo::printModule(*module);
}

}  // namespace kiln::runtime
