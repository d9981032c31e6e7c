// The executable decompositions the CHLO rows of the op registry point at (DecomposeFn):
// each builds StableHLO ops computing the op bit for bit, or returns nothing where it
// does not apply.
#pragma once

#include <vector>

#include "ir/op_registry.h"

namespace kiln {

std::vector<Value*> decomposeSquare(Builder& b, const Op& op);
std::vector<Value*> decomposeMulhi(Builder& b, const Op& op);
std::vector<Value*> decomposeNextAfter(Builder& b, const Op& op);
std::vector<Value*> decomposeTopK(Builder& b, const Op& op);

}  // namespace kiln
