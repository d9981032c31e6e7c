// interpreter.run_parallel on plugin devices: the module is compiled once, through a
// plugin, as an executable for R replicas x P partitions (each process entered at its
// function: processes may run different ones, which exchange with send/recv), and runs
// on R x P of the plugin's devices, whose collectives exchange through the runtime's
// communicator — the way a multi-device program runs outside the tests.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "interp/host_value.h"
#include "ir/module.h"
#include "runtime/client.h"

namespace kiln::testing {

class ParallelOnDevices {
 public:
  // `plugin`: "cpu" or "interp" (loaded on first use). The client has
  // max(8, the plugin's default) devices: the conformance suites need up to 6.
  explicit ParallelOnDevices(std::string plugin) : plugin_(std::move(plugin)) {}

  // Why `op` cannot run this way (it feeds infeed to several processes, or its values
  // are not tensors or tokens the plugin API passes); nullopt when it can. Infeed of one
  // process: its functions' values go to the device's infeed queue.
  static std::optional<std::string> whyNot(const Module& module, const Op& op);

  // Runs `op` (of `module`) on `inputs`; results as the interpreter's kernel returns them
  // (replica-major). Throws kiln::Error for compile and run failures.
  interp::HostValues run(const Module& module, const Op& op, const interp::HostValues& inputs);

  // The interpreter hook: runs `op` here when it can, else counts why not and returns
  // nullopt (the interpreter's threads run it).
  std::optional<interp::HostValues> runIfPossible(const Module& module, const Op& op, const interp::HostValues& inputs);

  // What ran where so far: ops run on devices, and the others by reason.
  struct Counts {
    size_t onDevices = 0;
    std::map<std::string, size_t> onThreads;
  };
  Counts counts() const;

 private:
  const runtime::Client& client();

  std::string plugin_;
  mutable std::mutex mutex_;
  std::optional<runtime::Client> client_;
  Counts counts_;
};

}  // namespace kiln::testing
