// Pieces of a larger program: a C++ function traced into a private function of the
// module being built (the loss under grad, a loop body), with the outside arrays it
// captured, which whoever calls the function passes after its own arguments.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "frontend/trace.h"
#include "kiln/transforms.h"

namespace kiln::detail {

struct TracedPiece {
  Function* function = nullptr;
  std::vector<Array> captures;
};

// `check`, when given, sees f's outputs before they are returned (to reject them early).
TracedPiece tracePiece(Module& module, const std::string& name, const FlatFn& f, const std::vector<ParamSpec>& params,
                       const std::function<void(const std::vector<Array>&)>& check = nullptr);

}  // namespace kiln::detail
