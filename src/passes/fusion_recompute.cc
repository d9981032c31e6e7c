#include "passes/fusion_recompute.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "ir/builder.h"
#include "passes/buffer_assignment.h"
#include "passes/fusion_cost.h"

namespace kiln::passes {
namespace {

// The bytes a copy of `op` reads from memory: its operands, except that what a cheap op
// (a broadcast, a splat, an iota, a reshape) computes is read as that op's own operands,
// since fusion copies such ops into every kernel that reads them.
int64_t bytesReadByACopy(const Op& op) {
  int64_t bytes = 0;
  for (const Value* v : op.operands()) {
    const Op* producer = v->isArgument() ? nullptr : v->definingOp();
    if (producer && isCheapToDuplicate(*producer)) {
      for (const Value* source : producer->operands()) bytes += valueBytes(source->type());
    } else {
      bytes += valueBytes(v->type());
    }
  }
  return bytes;
}

// Copies per op at most: each copy is one more reader of what the op reads, so a chain
// whose links are each read elsewhere too would otherwise be copied once per link below
// it, quadratically in its length.
constexpr size_t kMaxCopies = 4;

bool isCandidate(const Op& op) {
  if (fusionClass(op) != FusionClass::Loop || !op.info().has(kElementwise) || isExpensive(op)) return false;
  if (op.numResults() != 1 || op.numRegions() != 0) return false;
  const int64_t bytes = valueBytes(op.result()->type());
  // Smaller results stay in the cache between the kernels: writing them costs nothing.
  // And a copy may read a little more than the result (x and a mean per row, for x -
  // mean): what fits in the cache is read once from memory whoever reads it.
  return bytes >= kCacheResidentBytes && bytesReadByACopy(op) <= bytes + kCacheResidentBytes;
}

// A reader that would take a copy into its own kernel: an elementwise op, or a reduce.
bool takesACopy(const Op& reader) {
  const FusionClass c = fusionClass(reader);
  return (c == FusionClass::Loop && reader.info().has(kElementwise)) || c == FusionClass::Reduce;
}

}  // namespace

bool recomputeCheapSharedOps(Region& region, const std::string& function, FusionPlan& plan) {
  std::vector<Op*> ops;
  for (auto& op : region.ops()) ops.push_back(op.get());
  bool changed = false;
  // Last to first: a copy made for a reader downstream is itself a reader of what it
  // computes from, so a chain of such ops is copied whole.
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    Op* op = *it;
    if (!isCandidate(*op)) continue;
    std::vector<Op*> readers;
    bool othersRead = false;  // a reader that keeps the original (a dot, a nested region, the return)
    for (const Use& use : op->result()->uses()) {
      Op* reader = use.user;
      if (std::find(readers.begin(), readers.end(), reader) != readers.end()) continue;
      if (reader->parentRegion() == &region && !reader->info().isTerminator() && takesACopy(*reader))
        readers.push_back(reader);
      else
        othersRead = true;
    }
    // The original serves every other reader, or the first of these.
    if (!othersRead && !readers.empty()) readers.erase(readers.begin());
    if (readers.size() > kMaxCopies) continue;
    for (Op* reader : readers) {
      ValueMap map;
      Op* copy = region.insert(region.positionOf(reader), op->clone(map));
      for (size_t i = 0; i < reader->numOperands(); ++i)
        if (reader->operand(i) == op->result()) reader->setOperand(i, copy->result());
      changed = true;
    }
    if (!readers.empty())
      plan.decisions.push_back(
          {true, function, describe(*op) + fmt::format(" copied for {} reader{}", readers.size(), readers.size() == 1 ? "" : "s"),
           fmt::format("cheap, and reads {} bytes where writing it out for other kernels moves {}", bytesReadByACopy(*op),
                       valueBytes(op->result()->type()))});
  }
  return changed;
}

}  // namespace kiln::passes
