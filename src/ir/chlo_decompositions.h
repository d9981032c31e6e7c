// The executable decompositions the CHLO rows of the op registry point at (DecomposeFn):
// each builds StableHLO ops computing the op, or returns nothing where it does not apply.
// The structural ones (chlo_decompositions.cc) compute it bit for bit; the math functions
// (chlo_math_decompositions.cc) within the ULP bounds their tests state.
#pragma once

#include <vector>

#include "ir/op_registry.h"

namespace kiln {

std::vector<Value*> decomposeSquare(Builder& b, const Op& op);
std::vector<Value*> decomposeMulhi(Builder& b, const Op& op);
std::vector<Value*> decomposeNextAfter(Builder& b, const Op& op);
std::vector<Value*> decomposeTopK(Builder& b, const Op& op);
std::vector<Value*> decomposeScan(Builder& b, const Op& op);
std::vector<Value*> decomposeRaggedDot(Builder& b, const Op& op);

std::vector<Value*> decomposeAcos(Builder& b, const Op& op);
std::vector<Value*> decomposeAcosh(Builder& b, const Op& op);
std::vector<Value*> decomposeAsin(Builder& b, const Op& op);
std::vector<Value*> decomposeAsinh(Builder& b, const Op& op);
std::vector<Value*> decomposeAtan(Builder& b, const Op& op);
std::vector<Value*> decomposeAtanh(Builder& b, const Op& op);
std::vector<Value*> decomposeCosh(Builder& b, const Op& op);
std::vector<Value*> decomposeSinh(Builder& b, const Op& op);
std::vector<Value*> decomposeTan(Builder& b, const Op& op);
std::vector<Value*> decomposeErf(Builder& b, const Op& op);
std::vector<Value*> decomposeErfc(Builder& b, const Op& op);
std::vector<Value*> decomposeErfInv(Builder& b, const Op& op);
std::vector<Value*> decomposeLgamma(Builder& b, const Op& op);
std::vector<Value*> decomposeDigamma(Builder& b, const Op& op);
std::vector<Value*> decomposeBesselI1e(Builder& b, const Op& op);

}  // namespace kiln
