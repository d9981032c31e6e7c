// Partitioning on the host and running the per-device program (see sharded_program.h).
#include "runtime/sharded_program.h"

#include "ir/sharded_literal.h"

namespace kiln::runtime {

namespace {

std::vector<Device> devicesFor(const Client& client, const ShardedProgram& program) {
  const int64_t n = program.report.numDevices;
  std::vector<Device> devices = client.devices();
  if (const int processes = client.numProcesses(); processes > 1) {
    if (n != processes)
      throw Error(ErrorKind::Usage, "the program is partitioned over " + std::to_string(n) + " devices; the job has " +
                                        std::to_string(processes) + " processes (mpirun -np " + std::to_string(n) + ")");
    for (const Sharding& s : program.report.results)
      if (!s.isFullyReplicated() && program.report.partitioned)
        throw Error(ErrorKind::Usage, "a result of the program is split over the devices; a run over MPI ranks needs "
                                      "it partitioned with gatherResults");
    devices.erase(devices.begin() + 1, devices.end());
    return devices;
  }
  if (static_cast<int64_t>(devices.size()) < n)
    throw Error(ErrorKind::Usage, "the program is partitioned over " + std::to_string(n) + " devices; the plugin has " +
                                      std::to_string(devices.size()));
  devices.erase(devices.begin() + n, devices.end());
  return devices;
}

Executable compileFor(const Client& client, const ShardedProgram& program, CompileOptions options) {
  options.partitions = static_cast<int>(program.report.numDevices);
  return client.compile(program.text, options);
}

}  // namespace

ShardedExecutable::ShardedExecutable(const Client& client, ShardedProgram program, CompileOptions options)
    : client_(client),
      program_(std::move(program)),
      devices_(devicesFor(client, program_)),
      firstPartition_(client.numProcesses() > 1 ? client.processIndex() : 0),
      executable_(compileFor(client, program_, std::move(options))) {}

std::vector<std::vector<Buffer>> ShardedExecutable::place(const std::vector<Literal>& args) const {
  if (args.size() != program_.params.size())
    throw Error(ErrorKind::Usage, "the program takes " + std::to_string(program_.params.size()) + " arguments, not " +
                                      std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].type() != program_.params[i])
      throw Error(ErrorKind::Type, "argument " + std::to_string(i) + " is " + args[i].type().str() + ", the program takes " +
                                       program_.params[i].str());
  std::vector<std::vector<Buffer>> placed(devices_.size());
  for (size_t i = 0; i < args.size(); ++i) {
    std::vector<Buffer> pieces = placeArgument(i, args[i]);
    for (size_t d = 0; d < devices_.size(); ++d) placed[d].push_back(std::move(pieces[d]));
  }
  return placed;
}

std::vector<Buffer> ShardedExecutable::placeArgument(size_t i, const Literal& value) const {
  const passes::PartitionReport& report = program_.report;
  std::vector<Buffer> pieces;
  for (size_t d = 0; d < devices_.size(); ++d)
    pieces.push_back(client_.bufferFromHost(
        report.partitioned ? shardOf(value, report.params.at(i), firstPartition_ + static_cast<int64_t>(d)) : value,
        devices_[d]));
  return pieces;
}

std::vector<std::vector<Buffer>> ShardedExecutable::execute(const std::vector<std::vector<Buffer>>& placed,
                                                            const ExecuteOptions& options) const {
  std::vector<std::vector<const Buffer*>> lists(placed.size());
  for (size_t d = 0; d < placed.size(); ++d)
    for (const Buffer& b : placed[d]) lists[d].push_back(&b);
  std::vector<Executable::Execution> runs = executable_.execute(lists, devices_, options);
  std::vector<std::vector<Buffer>> outputs;
  for (auto& run : runs) {
    run.done.await();
    outputs.push_back(std::move(run.outputs));
  }
  return outputs;
}

std::vector<Literal> ShardedExecutable::assemble(const std::vector<std::vector<Buffer>>& outputs) const {
  const passes::PartitionReport& report = program_.report;
  std::vector<Literal> results;
  for (size_t r = 0; r < program_.results.size(); ++r) {
    std::vector<Literal> pieces;
    for (const std::vector<Buffer>& device : outputs) pieces.push_back(device[r].toLiteral());
    // Under MPI the one device's results are whole (gathered by the program).
    const bool whole = !report.partitioned || devices_.size() < static_cast<size_t>(report.numDevices);
    results.push_back(whole ? pieces[0] : assembleShards(pieces, report.results[r], program_.results[r]));
  }
  return results;
}

std::vector<Literal> ShardedExecutable::run(const std::vector<Literal>& args, const ExecuteOptions& options) const {
  return assemble(execute(place(args), options));
}

std::vector<Literal> runSharded(const Client& client, const ShardedProgram& program, const std::vector<Literal>& args,
                                CompileOptions options, const ExecuteOptions& execute) {
  return ShardedExecutable(client, program, std::move(options)).run(args, execute);
}

}  // namespace kiln::runtime
