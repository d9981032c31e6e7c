// The row-by-row test and block size of row groups (row_groups.h).
#include "backends/cpu/row_groups.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"

#include <algorithm>
#include <unordered_map>

namespace kiln::cpu {
namespace {

// What row i of a value depends on, among the values produced in the group: none of
// them (Outside), only their row i (Aligned), or anything else (Mixed).
enum class Rows { Outside, Aligned, Mixed };

// The row dimension of a shape: its first dimension that is not 1 (dimensions of 1
// before it do not change where a row's elements are), or -1.
int64_t rowDim(const Shape& shape) {
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) return static_cast<int64_t>(d);
  return -1;
}

int64_t rowDim(const Value* v) { return rowDim(v->type().shape()); }

bool contains(const std::vector<int64_t>& xs, int64_t x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

// Whether `op` keeps the rows as they are: row i of its result reads only row i of its
// operands that have `rows` leading (the others are read whole, so they must be Outside).
bool keepsRows(const Op& op, int64_t rows) {
  namespace O = ops;
  if (!leadsRows(op.result(0), rows)) return false;
  if (op.info().has(kElementwise)) return true;
  // Where the rows run in the (first) operand and in the result.
  const int64_t in = rowDim(op.operand(0)), out = rowDim(op.result(0));
  auto at = [&](const char* name, int64_t d) { return op.attr(name).asInts()[static_cast<size_t>(d)]; };
  switch (op.code()) {
    case O::BroadcastInDim: return leadsRows(op.operand(0), rows) && at("broadcast_dimensions", in) == out;
    case O::Reshape: return leadsRows(op.operand(0), rows);
    case O::Transpose: return at("permutation", out) == in;
    case O::Reduce:
      for (size_t i = 0; i < op.numResults(); ++i)
        if (!leadsRows(op.result(i), rows)) return false;
      return !contains(op.attr("dimensions").asInts(), in);
    case O::Reverse: return !contains(op.attr("dimensions").asInts(), in);
    case O::Concatenate: return op.attr("dimension").asInt() != in;
    case O::Slice:
      return at("start_indices", in) == 0 && at("strides", in) == 1 && at("limit_indices", in) == rows;
    case O::Pad:
      return at("edge_padding_low", in) == 0 && at("edge_padding_high", in) == 0 && at("interior_padding", in) == 0;
    default: return false;
  }
}

Rows rowsOf(const Op& op, const std::vector<Rows>& operands, int64_t rows) {
  bool aligned = false;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] == Rows::Mixed) return Rows::Mixed;
    if (operands[i] == Rows::Aligned) {
      // A rank-0 or otherwise shaped operand is read whole, which needs all its rows.
      if (!leadsRows(op.operand(i), rows)) return Rows::Mixed;
      aligned = true;
    }
  }
  if (!aligned) return Rows::Outside;
  return keepsRows(op, rows) ? Rows::Aligned : Rows::Mixed;
}

}  // namespace

bool leadsRows(const Value* v, int64_t rows) { return rowDim(v) >= 0 && v->type().dim(rowDim(v)) == rows; }

bool readsRowByRow(const Op& kernel, int64_t rows, const std::function<bool(const Value*)>& fromGroup) {
  for (size_t i = 0; i < kernel.numResults(); ++i)
    if (!leadsRows(kernel.result(i), rows)) return false;
  std::vector<Rows> operands;
  for (const Value* v : kernel.operands())
    operands.push_back(!fromGroup(v) ? Rows::Outside : leadsRows(v, rows) ? Rows::Aligned : Rows::Mixed);
  if (!kernel.is(ops::Fusion)) return rowsOf(kernel, operands, rows) != Rows::Mixed;
  // A fusion: through its body, from the arguments that stand for its operands.
  const Region& body = kernel.region(0);
  std::unordered_map<const Value*, Rows> of;
  for (size_t i = 0; i < body.numArguments(); ++i) of[body.argument(i)] = operands[i];
  auto rowsOfValue = [&](const Value* v) {
    auto it = of.find(v);
    return it == of.end() ? Rows::Outside : it->second;  // defined outside the fusion: read whole
  };
  for (const auto& op : body.ops()) {
    std::vector<Rows> in;
    for (const Value* v : op->operands()) in.push_back(rowsOfValue(v));
    if (op->info().isTerminator()) {
      for (Rows r : in)
        if (r == Rows::Mixed) return false;
      continue;
    }
    // Ops with regions of their own (a reduce's body) compute on scalars.
    Rows r = rowsOf(*op, in, rows);
    for (size_t i = 0; i < op->numResults(); ++i) of[op->result(i)] = r;
  }
  return true;
}

int64_t rowsOfSpace(const Shape& space) {
  const int64_t d = rowDim(space);
  return d < 0 ? 0 : space[static_cast<size_t>(d)];
}

int64_t rowsPerBlock(int64_t bytesPerRow) {
  // A quarter of the 2 MiB L2 of this machine's cores: the block stays there while every
  // kernel of the group passes over it, beside the prefetched next rows. (Softmax over
  // 4096x4096 f32 runs as fast from 256 KiB to 8 MiB blocks, and 10% slower at 16 KiB.)
  constexpr int64_t kBlockBytes = int64_t{512} << 10;
  return std::max<int64_t>(1, kBlockBytes / std::max<int64_t>(bytesPerRow, 1));
}

}  // namespace kiln::cpu
