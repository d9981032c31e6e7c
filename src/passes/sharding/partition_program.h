// A program's text partitioned for its devices: what a host does before running a
// sharded program (runtime/sharded_program.h) and what a plugin does when a framework
// compiles a program for several partitions (PJRT's use_spmd_partitioning).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "passes/sharding/spmd_partition.h"

namespace kiln::passes {

struct ShardedProgram {
  std::string text;  // the per-device program (StableHLO with collectives)
  PartitionReport report;
  std::vector<Type> params, results;  // the global types
};

// Partitions function `entry` (empty: @main) of the program `text` (named `name` in
// errors): inlining and CHLO lowering first, then propagation and partitioning. A program
// without shardings comes back as it is, for one device. `gatherResults`: every device
// computes the whole results (what a run over MPI ranks needs: each rank holds only its
// own device's outputs).
ShardedProgram partitionProgram(std::string_view text, const std::string& name, std::string entry = "",
                                bool gatherResults = false);

}  // namespace kiln::passes
