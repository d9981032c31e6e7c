// Sharding rules: how each op's operand and result dimensions relate, as factors (the
// idea of Shardy's OpShardingRule). A factor is one loop of the op's computation; every
// operand or result dimension belongs to one factor or to none. Splitting a factor over
// some mesh axes splits every dimension of that factor the same way, and the op then
// runs unchanged on the local pieces: that is what lets propagation carry a sharding
// through the op (from any of its values to the others) and the partitioner emit the op
// on local shapes. This file is the sharding layer's one table of op rules; an op without
// an entry runs on whole (replicated) values.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace kiln::passes {

struct ShardingRule {
  enum class Kind : uint8_t {
    Parallel,    // in results and operands alike: splitting it needs no communication
    Reduction,   // in operands only (contracting, reduced dimensions): each device's
                 // result is a partial one, combined by `reducer` over the factor's axes
    Replicated,  // must stay whole (a reduction no all_reduce can combine)
  };
  struct Factor {
    int64_t size;
    Kind kind;
  };
  bool known = false;  // false: no rule (operands gathered whole, results replicated)
  std::vector<Factor> factors;
  std::vector<std::vector<int>> operandDims;  // [operand][dimension] -> factor, or -1
  std::vector<std::vector<int>> resultDims;   // [result][dimension] -> factor, or -1
  OpCode reducer = OpCode::Add;               // combines the partial results of Reduction factors
};

ShardingRule shardingRule(const Op& op);

// How the sharding passes' notes name an op ("stablehlo.dot_general (line 4)") and a list
// of mesh axes ({"x", "y"}).
std::string where(const Op& op);
std::string axesText(const std::vector<std::string>& axes);

// `op`'s attributes for running on local pieces whose operands have `localOperands`
// types: the few attributes that spell out a split dimension's size (slice's limits).
NamedAttrList localAttributes(const Op& op, const TypeList& localOperands);

}  // namespace kiln::passes
