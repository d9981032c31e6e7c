// A program with shardings, run over several devices of any plugin: partitioned on the
// host (so every plugin, kiln's or another vendor's, runs sharded programs), compiled
// once for one partition per device, each argument split into the piece its device
// holds, each result assembled from the devices' pieces. The host side of what
// jax.jit does with in_shardings / out_shardings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "passes/sharding/partition_program.h"
#include "runtime/client.h"

namespace kiln::runtime {

using passes::partitionProgram;
using passes::ShardedProgram;

// `program` compiled for its devices (the client's first ones), run on global arrays.
// Under the mpi communicator each rank holds the one device it addresses: it places that
// device's pieces, runs its process, and assembles from its own outputs, so the program
// must have been partitioned with gatherResults.
class ShardedExecutable {
 public:
  // `options` are the compile options besides the partitions.
  ShardedExecutable(const Client& client, ShardedProgram program, CompileOptions options = {});
  const ShardedProgram& program() const { return program_; }
  // Splits `args` (global arrays) among the devices, runs, and assembles the results:
  // assemble(execute(place(args))).
  std::vector<Literal> run(const std::vector<Literal>& args, const ExecuteOptions& options = {}) const;
  // Each device's pieces of `args`, on the device.
  std::vector<std::vector<Buffer>> place(const std::vector<Literal>& args) const;
  // Argument `i`'s pieces (one per device of devices()), on the devices.
  std::vector<Buffer> placeArgument(size_t i, const Literal& value) const;
  // The devices it runs on, in partition order (one under MPI: this rank's).
  const std::vector<Device>& devices() const { return devices_; }
  const Client& client() const { return client_; }
  // Runs on placed arguments (each device's list); returns each device's outputs, ready.
  std::vector<std::vector<Buffer>> execute(const std::vector<std::vector<Buffer>>& placed,
                                           const ExecuteOptions& options = {}) const;
  // The global results from each device's outputs.
  std::vector<Literal> assemble(const std::vector<std::vector<Buffer>>& outputs) const;

 private:
  const Client& client_;
  ShardedProgram program_;
  std::vector<Device> devices_;
  int64_t firstPartition_;  // the partition devices_[0] runs (under MPI: this rank's)
  Executable executable_;
};

// Compiles and runs once.
std::vector<Literal> runSharded(const Client& client, const ShardedProgram& program, const std::vector<Literal>& args,
                                CompileOptions options = {}, const ExecuteOptions& execute = {});

}  // namespace kiln::runtime
