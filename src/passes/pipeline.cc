// The pass registry by name, and the default order: inline first so every later pass
// sees whole programs; simplify and fold feed each other; CSE and DCE clean up what they
// leave; fusion on the clean graph; then the schedule and buffers for the fused kernels.
#include <functional>
#include <map>
#include <sstream>

#include "passes/passes.h"
#include "support/error.h"

namespace kiln::passes {
namespace {

const std::map<std::string, std::function<std::unique_ptr<Pass>()>>& registry() {
  static const std::map<std::string, std::function<std::unique_ptr<Pass>()>> kPasses = {
      {"inline", createInlinePass},      {"simplify", createSimplifyPass},
      {"fold", createConstantFoldPass},  {"cse", createCsePass},
      {"dce", createDcePass},            {"fusion", createFusionPass},
      {"schedule", createSchedulePass},  {"buffers", createBufferAssignmentPass},
  };
  return kPasses;
}

}  // namespace

std::vector<std::string> allPassNames() {
  std::vector<std::string> names;
  for (const auto& [name, make] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Pass> createPass(const std::string& name) {
  auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const std::string& n : allPassNames()) known += (known.empty() ? "" : ", ") + n;
    throw Error(ErrorKind::Usage, "unknown pass '" + name + "' (known: " + known + ")");
  }
  return it->second();
}

std::vector<std::string> defaultPipeline() {
  return {"inline", "simplify", "fold", "simplify", "cse", "dce", "fusion", "schedule", "buffers"};
}

std::vector<std::string> parsePassList(const std::string& list) {
  if (list.empty()) return defaultPipeline();
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (name.empty()) continue;
    createPass(name);  // unknown names fail here, before any pass runs
    names.push_back(name);
  }
  return names;
}

}  // namespace kiln::passes
