// SPMD partitioning (what XLA's SPMD partitioner does after GSPMD propagation): the
// global program, whose values have the shardings propagation chose, becomes the one
// program every device runs on its own pieces. Each op with a sharding rule runs on
// local shapes once its operands are resharded to what its factors' splits require;
// partial results are combined where a value's sharding needs them whole; an op without
// a rule runs on whole values. The result is ordinary StableHLO with collectives (over
// partition ids: one replica, one partition per device) that every backend runs.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "passes/sharding/propagation.h"
#include "passes/sharding/resharding.h"

namespace kiln::passes {

struct PartitionReport {
  bool partitioned = false;  // false: the function gives no shardings; nothing changed
  int64_t numDevices = 1;
  CollectiveCounts collectives;
  // The per-device program's parameter and result shardings (the layouts a host splits
  // arguments by and assembles results from).
  std::vector<Sharding> params, results;
  std::vector<std::string> notes;  // propagation's choices and the ops run on whole values
};

// Marks a module whose entry is already the per-device program (its parameters' and
// results' shardings then describe the global values their pieces belong to).
inline constexpr std::string_view kPartitionedAttr = "kiln.partitioned";

// Replaces function `entry` of `module` (inlined and lowered to StableHLO first: the
// caller runs those passes) by its per-device program, when it gives shardings; sets
// mhlo.num_partitions to the mesh's device count and mhlo.num_replicas to 1. The new
// function's parameters and results keep their shardings as attributes, in the
// program's own form, and the module gets kPartitionedAttr (a module that has it is
// left as it is). Unsupported: programs with collectives of their own, manual
// (shard_map) shardings, dimensions the mesh does not divide evenly.
// `gatherResults`: every result comes out whole on every device (all-gathered at the
// end, whatever sharding propagation gave it), for a host that reads only its own
// device's outputs (one MPI rank).
PartitionReport partitionModule(Module& module, const std::string& entry, bool gatherResults = false);

}  // namespace kiln::passes
