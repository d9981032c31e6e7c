// The batch normalization ops as the StableHLO spec defines them, by decomposition into
// elementwise ops, broadcasts and sums over every dimension but the feature one. The
// transforms differentiate and batch these ops through them (the registry's DecomposeFn
// for each); the interpreter and the backends keep their own kernels.
#pragma once

#include <vector>

#include "ir/op_registry.h"

namespace kiln {

std::vector<Value*> decomposeBatchNormInference(Builder& b, const Op& op);
std::vector<Value*> decomposeBatchNormTraining(Builder& b, const Op& op);
std::vector<Value*> decomposeBatchNormGrad(Builder& b, const Op& op);

}  // namespace kiln
