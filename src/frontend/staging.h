// Pieces of a larger program: a C++ function traced into a private function of the
// module being built (the loss under grad, a loop body), with the outside arrays it
// captured, which whoever calls the function passes after its own arguments.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "frontend/trace.h"
#include "runtime/client.h"
#include "kiln/transforms.h"

namespace kiln::detail {

// A function traced into a module of its own, compiled on first run (transforms.h).
struct Staged {
  std::unique_ptr<Module> module;
  std::string entry;
  std::vector<Array> captures;  // passed after the inputs
  std::string label;            // names the program in its run's failures
  mutable std::mutex lock;
  mutable std::shared_ptr<const runtime::Executable> executable;
  mutable std::shared_ptr<const void> sharded;  // jit with shardings: its partitioned executable (sharded_jit.cc)
  mutable std::optional<bool> givesShardings;   // whether the program itself has shardings (asked once)
};

// a, then b.
std::vector<Array> concat(std::vector<Array> a, const std::vector<Array>& b);

struct TracedPiece {
  Function* function = nullptr;
  std::vector<Array> captures;
};

// `check`, when given, sees f's outputs before they are returned (to reject them early).
TracedPiece tracePiece(Module& module, const std::string& name, const FlatFn& f, const std::vector<ParamSpec>& params,
                       const std::function<void(const std::vector<Array>&)>& check = nullptr);

}  // namespace kiln::detail
