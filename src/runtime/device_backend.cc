// The entry function every backend runs (the one rule, so both plugins agree).
#include "runtime/device_backend.h"

#include "support/error.h"

namespace kiln::runtime {

const Function& entryFunction(const Module& module) {
  if (const Function* main = module.lookup("main")) return *main;
  std::vector<const Function*> visible;
  std::string names;
  for (const auto& f : module.functions()) {
    names += (names.empty() ? "@" : ", @") + f->name();
    if (f->visibility == Visibility::Public) visible.push_back(f.get());
  }
  if (visible.size() == 1) return *visible[0];
  throw Error(ErrorKind::Usage, "the program has no @main and not one public function to run instead (functions: " +
                                    (names.empty() ? std::string("none") : names) + ")");
}

}  // namespace kiln::runtime
