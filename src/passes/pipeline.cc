// The pass registry by name, the --passes syntax, and the default order: inline first so
// every later pass sees whole programs; lower-chlo so they see StableHLO; simplify and fold feed each other, so they run as
// a fixpoint group until neither changes anything; CSE and DCE clean up what they leave;
// fusion on the clean graph; then the schedule and buffers for the fused kernels.
#include <functional>
#include <map>

#include "passes/fixpoint.h"
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
      {"lower-chlo", createLowerChloPass},  {"split-complex-sums", createSplitComplexSumsPass},
  };
  return kPasses;
}

constexpr std::string_view kFixpoint = "fixpoint";

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// The items of a comma-separated list, split at the commas outside parentheses, trimmed;
// empty items are dropped. `whole` is the text the user wrote, for the messages.
std::vector<std::string> splitTopLevel(std::string_view list, const std::string& whole) {
  std::vector<std::string> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    char c = i < list.size() ? list[i] : ',';
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0) throw Error(ErrorKind::Usage, "unmatched ')' in pass list '" + whole + "'");
    if (c != ',' || depth > 0) continue;
    if (std::string item = trim(list.substr(start, i - start)); !item.empty()) items.push_back(std::move(item));
    start = i + 1;
  }
  if (depth > 0) throw Error(ErrorKind::Usage, "unclosed '(' in pass list '" + whole + "'");
  return items;
}

std::unique_ptr<Pass> createPassIn(const std::string& item, const std::string& whole);

// `fixpoint(a,b,...)` (the caller checked the prefix and that the parentheses balance).
std::unique_ptr<Pass> createFixpoint(const std::string& item, const std::string& whole) {
  size_t open = item.find('(');
  if (open == std::string::npos || trim(item.substr(0, open)) != kFixpoint || item.back() != ')')
    throw Error(ErrorKind::Usage, "bad fixpoint group '" + item + "' in pass list '" + whole +
                                      "' (write fixpoint(pass,pass,...))");
  std::string inside = item.substr(open + 1, item.size() - open - 2);
  std::vector<std::unique_ptr<Pass>> passes;
  for (const std::string& inner : splitTopLevel(inside, whole)) passes.push_back(createPassIn(inner, whole));
  if (passes.empty())
    throw Error(ErrorKind::Usage, "empty fixpoint group '" + item + "' in pass list '" + whole + "'");
  return std::make_unique<FixpointPass>(std::move(passes));
}

std::unique_ptr<Pass> createPassIn(const std::string& item, const std::string& whole) {
  if (item.find('(') != std::string::npos || item.find(')') != std::string::npos) {
    if (item.rfind(kFixpoint, 0) != 0)
      throw Error(ErrorKind::Usage, "only fixpoint(...) takes a list of passes, not '" + item + "' (in '" +
                                        whole + "')");
    return createFixpoint(item, whole);
  }
  auto it = registry().find(item);
  if (it == registry().end()) {
    std::string known;
    for (const std::string& n : allPassNames()) known += (known.empty() ? "" : ", ") + n;
    throw Error(ErrorKind::Usage, "unknown pass '" + item + "' (known: " + known + ", and fixpoint(pass,...))");
  }
  return it->second();
}

}  // namespace

std::vector<std::string> allPassNames() {
  std::vector<std::string> names;
  for (const auto& [name, make] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Pass> createPass(const std::string& name) {
  std::vector<std::string> items = splitTopLevel(name, name);
  if (items.size() != 1)
    throw Error(ErrorKind::Usage, items.empty() ? "empty pass name" : "one pass expected, not a list: '" + name + "'");
  return createPassIn(items[0], name);
}

std::vector<std::string> defaultPipeline() {
  return {"inline", "lower-chlo", "fixpoint(simplify,fold)", "cse", "dce", "fusion", "schedule", "buffers"};
}

std::vector<std::string> parsePassList(const std::string& list) {
  if (trim(list).empty()) return defaultPipeline();
  std::vector<std::string> names;
  // Every item is made once here, so a bad one fails before any pass runs; the names
  // returned are the passes' own (canonical: "fixpoint( simplify , fold)" -> "fixpoint(simplify,fold)").
  for (const std::string& item : splitTopLevel(list, list)) names.emplace_back(createPassIn(item, list)->name());
  return names;
}

}  // namespace kiln::passes
