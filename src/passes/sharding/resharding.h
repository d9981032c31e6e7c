// Resharding: the collectives and local slices that turn this device's piece of a value
// laid out one way into its piece under another layout, over one mesh. Partial sums are
// combined first (a reduce_scatter when the target splits a whole dimension over the same
// axes, else an all_reduce); a split that moves from one dimension to another is one
// all_to_all; splits the target lacks are all_gathers; splits it adds are slices of what
// the device already holds (no communication). Collectives address devices by partition
// id (channel handles and global device ids), as an SPMD program of one replica does.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/ops/stablehlo.h"
#include "ir/sharding.h"

namespace kiln::passes {

// The shape of one device's piece of a `global` value under `s`.
Type localType(const Type& global, const Sharding& s);

struct CollectiveCounts {
  int allReduce = 0, allGather = 0, allToAll = 0, reduceScatter = 0, collectivePermute = 0, localSlices = 0;
  // The bytes each device sends, by the ring algorithms' counts (an all_reduce of B bytes
  // over g devices sends 2(g-1)/g B; an all_gather, reduce_scatter or all_to_all (g-1)/g
  // of its larger side): a model of the program's traffic, not a measurement.
  double bytesSent = 0;
  int total() const { return allReduce + allGather + allToAll + reduceScatter + collectivePermute; }
};

class Resharder {
 public:
  using Axes = std::vector<std::string>;
  Resharder(Builder& b, const DeviceMesh& mesh) : b_(b), mesh_(mesh) {}
  // Resharding inside a region `b` builds (a loop body): the channels and counts are
  // `outer`'s; the shard indices are computed again there (the outer ones would not
  // dominate a later use outside it... nor the region's, outside).
  Resharder(Builder& b, Resharder& outer) : b_(b), mesh_(outer.mesh_), shared_(outer.shared_) {}

  // `local` is this device's piece of a value of type `global` laid out as `from` (whose
  // unreduced axes hold partial results to combine with `reducer`).
  Value* reshard(Value* local, const Type& global, const Sharding& from, const Sharding& to,
                 OpCode reducer = ops::Add);
  // Each device's `local` value sent along `axes`: within every group of devices that
  // differ only along them, the one at index `from` sends to the one at index `to`, for
  // each (from, to) of `pairs` (a device nothing is sent to gets zeros): one
  // collective_permute (a shard_map's ppermute); `purpose` goes into its note.
  Value* permute(Value* local, const Axes& axes, const std::vector<std::pair<int64_t, int64_t>>& pairs,
                 const std::string& purpose = "");
  // This device's `local` piece of a value whose dimension `dim` is split over `axes`,
  // widened by the last `before` elements of the piece before it and the first `after`
  // elements of the piece after it (past either end, the scalar `padding`, or zeros):
  // a collective_permute each way (GSPMD's halo exchange). A negative `after` drops
  // that many of the piece's own last elements.
  Value* exchangeHalos(Value* local, int64_t dim, const Axes& axes, int64_t before, int64_t after,
                       Value* padding = nullptr);
  // How many pieces `axes` split a dimension into.
  static int64_t pieces(const DeviceMesh& mesh, const Axes& axes);
  const CollectiveCounts& counts() const { return shared_->counts; }
  // Each collective inserted, with the context it was inserted for.
  const std::vector<std::string>& notes() const { return shared_->notes; }
  // What the collectives inserted from now on are for ("stablehlo.dot_general (line 4)").
  void setContext(std::string context) { context_ = std::move(context); }

 private:
  // The device groups that differ only along `axes`, each ordered by shard index.
  std::vector<Dims> groups(const Axes& axes) const;
  // This device's shard index along `axes` (an i64 scalar; computed once per axes).
  Value* shardIndex(const Axes& axes);
  int64_t pieces(const Axes& axes) const { return pieces(mesh_, axes); }
  // Counts a collective of `kind` sending `bytes` per device, and notes it.
  void record(int CollectiveCounts::*kind, double bytes, const std::string& what);
  // (g-1)/g of `bytes` for groups of g devices along `axes`.
  double ring(const Axes& axes, int64_t bytes) const;
  NamedAttrList collectiveAttrs(const Axes& axes, bool globalIds);
  std::unique_ptr<Region> reducerRegion(DType dtype, OpCode reducer);

  struct Shared {  // what nested resharders share with the outermost
    int64_t nextChannel = 1;
    CollectiveCounts counts;
    std::vector<std::string> notes;
  };
  Builder& b_;
  const DeviceMesh& mesh_;
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  std::string context_;
  Value* partition_ = nullptr;
  std::map<Axes, Value*> indices_;
};

}  // namespace kiln::passes
