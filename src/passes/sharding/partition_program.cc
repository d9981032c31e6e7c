// A program's text partitioned for its devices (see partition_program.h).
#include "passes/sharding/partition_program.h"

#include "passes/passes.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::passes {

ShardedProgram partitionProgram(std::string_view text, const std::string& name, std::string entry, bool gatherResults) {
  std::unique_ptr<Module> module = stablehlo::parseModule(SourceBuffer::fromString(name, std::string(text)));
  if (entry.empty()) entry = "main";
  const Function* fn = module->lookup(entry);
  if (!fn) throw Error(ErrorKind::Usage, "no function @" + entry + " in " + name);
  ShardedProgram out;
  for (size_t i = 0; i < fn->numParams(); ++i) out.params.push_back(fn->param(i)->type());
  out.results = fn->resultTypes();
  PassContext context;
  for (const char* pass : {"inline", "lower-chlo"}) createPass(pass)->run(*module, context);
  out.report = partitionModule(*module, entry, gatherResults);
  out.text = stablehlo::printModule(*module);
  return out;
}

}  // namespace kiln::passes
