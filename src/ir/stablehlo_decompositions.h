// StableHLO ops that other StableHLO ops restate, as registry decompositions
// (OpInfo::decompose): the legacy broadcast (a broadcast_in_dim), torch_index_select (a
// gather), composite (a call of its decomposition function), and the dynamic_* ops,
// which kiln's static types make their static forms (what a shape operand must say is
// already in the result type; padding, given as operands, must be constants). The
// backends run these ops directly; the transforms differentiate and batch them through
// these decompositions.
#pragma once

#include <vector>

#include "ir/op_registry.h"

namespace kiln {

std::vector<Value*> decomposeBroadcast(Builder& b, const Op& op);
std::vector<Value*> decomposeTorchIndexSelect(Builder& b, const Op& op);
std::vector<Value*> decomposeComposite(Builder& b, const Op& op);
std::vector<Value*> decomposeDynamicBroadcastInDim(Builder& b, const Op& op);
std::vector<Value*> decomposeDynamicReshape(Builder& b, const Op& op);
std::vector<Value*> decomposeDynamicIota(Builder& b, const Op& op);
std::vector<Value*> decomposeDynamicGather(Builder& b, const Op& op);
// Nothing (the op stays) when the padding operands are not constants.
std::vector<Value*> decomposeDynamicPad(Builder& b, const Op& op);
std::vector<Value*> decomposeDynamicConv(Builder& b, const Op& op);

}  // namespace kiln
