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
#include "ir/ops/stablehlo.h"

namespace kiln::passes {

struct ShardingRule {
  enum class Kind : uint8_t {
    Parallel,    // in results and operands alike: splitting it needs no communication
    Windowed,    // a convolution's spatial dimension, a pooled one: each device's result piece reads
                 // its operand piece and a few elements of its neighbours' (halos)
    Reduction,   // in operands only (contracting, reduced dimensions): each device's
                 // result is a partial one, combined by `reducer` over the factor's axes
    Replicated,  // must stay whole (a reduction no all_reduce can combine)
  };
  struct Factor {
    int64_t size;  // (Windowed: the result's size; the operand's is `stride` times it)
    Kind kind;
    // Windowed: result element j reads operand elements [j*stride - low, j*stride - low
    // + extent), those outside the operand being padding.
    int64_t stride = 1, low = 0, extent = 1;
    // Whether `pieces` devices can each take one piece: even pieces, and for a window,
    // halos that only the next devices hold.
    bool splitsInto(int64_t pieces) const;
    // Windowed, split into `pieces`: how many elements each device's operand piece
    // needs from the piece before it and from the piece after it (negative: how many of
    // its own last elements no window reads).
    std::pair<int64_t, int64_t> halos(int64_t pieces) const;
  };
  bool known = false;  // false: no rule (operands gathered whole, results replicated)
  std::vector<Factor> factors;
  std::vector<std::vector<int>> operandDims;  // [operand][dimension] -> factor, or -1
  std::vector<std::vector<int>> resultDims;   // [result][dimension] -> factor, or -1
  OpCode reducer = ops::Add;               // combines the partial results of Reduction factors
  // [operand] -> the operand holding the value past its ends along a Windowed factor
  // (reduce_window's init value), or -1: zeros (a convolution's padding).
  std::vector<int> paddingOperand;
};

ShardingRule shardingRule(const Op& op);

// How the sharding passes' notes name an op ("stablehlo.dot_general (line 4)") and a list
// of mesh axes ({"x", "y"}).
std::string where(const Op& op);
std::string axesText(const std::vector<std::string>& axes);

// `op`'s attributes for running on local pieces whose operands have `localOperands`
// types: the few attributes that spell out a split dimension's size (slice's limits),
// and no padding along `haloed`, the dimensions whose pieces were widened by their
// halos (which brought the padding with them).
NamedAttrList localAttributes(const Op& op, const TypeList& localOperands, const std::vector<int64_t>& haloed = {});

}  // namespace kiln::passes
