// What every backend shares: the entry function's rule, the device count's variable
// (one rule, so both plugins agree) and the text every program has.
#include "runtime/device_backend.h"

#include <cctype>
#include <cstdlib>

#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::runtime {

interp::InterpOptions RunControl::interpOptions(const std::string& probeDir) const {
  interp::InterpOptions options;
  options.process = process;
  options.cancel = cancel;
  options.deadline = deadline;
  options.probeDir = probeDir;
  options.print = print;
  options.feeds = feeds;
  return options;
}

std::optional<std::string> CompiledProgram::text(const std::string& name) const {
  if (name == "program") return stablehlo::printModule(module());
  return std::nullopt;
}

std::string deviceCountVariable(const std::string& backend) {
  std::string name = "KILN_";
  for (char c : backend) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name + "_DEVICES";
}

int deviceCountFromEnvironment(const std::string& backend) {
  const std::string name = deviceCountVariable(backend);
  const char* env = std::getenv(name.c_str());
  if (!env || !*env) return 1;
  char* end = nullptr;
  long n = std::strtol(env, &end, 10);
  if (*end != '\0' || n < 1 || n > 1024)
    throw Error(ErrorKind::Usage, name + " is '" + env + "' (a device count, 1..1024)");
  return static_cast<int>(n);
}

const Function& entryFunction(const Module& module, const std::string& name) {
  if (const Function* main = module.lookup(name.empty() ? "main" : name)) return *main;
  std::vector<const Function*> visible;
  std::string names;
  for (const auto& f : module.functions()) {
    names += (names.empty() ? "@" : ", @") + f->name();
    if (f->visibility == Visibility::Public) visible.push_back(f.get());
  }
  if (names.empty())  // an empty file, say: about the program, so at its start
    throw Error(ErrorKind::Verify, "the program defines no functions to run", module.source, SourcePos{1, 1});
  if (!name.empty()) throw Error(ErrorKind::Usage, "the program has no function @" + name + " (functions: " + names + ")");
  if (visible.size() == 1) return *visible[0];
  throw Error(ErrorKind::Usage,
              "the program has no @main and not one public function to run instead (functions: " + names + ")");
}

}  // namespace kiln::runtime
