// interpreter.run_parallel as one multi-device executable through a plugin.
#include "testing/parallel_on_devices.h"

#include <algorithm>

#include "interp/interpreter.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::testing {

namespace {

// The functions of the op's grid, replica-major, and the grid's size.
struct Grid {
  std::vector<std::string> programs;
  int replicas = 0, partitions = 0;
};

Grid gridOf(const Op& op) {
  Grid grid;
  for (const Attribute& row : op.attr("programs").asArray()) {
    ++grid.replicas;
    grid.partitions = static_cast<int>(row.asArray().size());
    for (const Attribute& fn : row.asArray()) grid.programs.push_back(fn.asString());
  }
  return grid;
}

}  // namespace

std::optional<std::string> ParallelOnDevices::whyNot(const Module& module, const Op& op) {
  Grid grid = gridOf(op);
  if (grid.programs.empty()) return "it names no program";
  if (op.attr("infeed") && grid.programs.size() > 1)
    return "it feeds infeed to several processes (they share the interpreter's infeed queue; a device has its own)";
  for (const std::string& name : grid.programs) {
    const Function* fn = module.lookup(name);
    if (!fn) return "@" + name + " is not in the module";
    for (const std::vector<Type>& types : {fn->paramTypes(), fn->resultTypes()})
      for (const Type& t : types)
        if (!t.isTensor() && !t.isToken())
          return "@" + name + " passes a " + t.str() + " (the plugin API passes tensors and tokens)";
  }
  return std::nullopt;
}

std::optional<interp::HostValues> ParallelOnDevices::runIfPossible(const Module& module, const Op& op,
                                                                   const interp::HostValues& inputs) {
  if (std::optional<std::string> why = whyNot(module, op)) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_.onThreads[*why];
    return std::nullopt;
  }
  interp::HostValues results = run(module, op, inputs);
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_.onDevices;
  return results;
}

ParallelOnDevices::Counts ParallelOnDevices::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

const runtime::Client& ParallelOnDevices::client() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!client_) {
    runtime::Plugin plugin = runtime::Plugin::load(plugin_);
    // The plugin's default (KILN_CPU_DEVICES, ...) when it is more.
    const int defaultCount = static_cast<int>(runtime::Client(plugin).devices().size());
    client_.emplace(plugin, runtime::ClientOptions{std::max(8, defaultCount), 0});
  }
  return *client_;
}

interp::HostValues ParallelOnDevices::run(const Module& module, const Op& op, const interp::HostValues& inputs) {
  if (std::optional<std::string> why = whyNot(module, op))
    throw Error(ErrorKind::Unsupported, "unsupported: interpreter.run_parallel on plugin devices: " + *why);
  const Grid grid = gridOf(op);
  // A program that reads infeed runs on a client of its own (one device, the grid has
  // one process), so that values a failing program leaves in its queue reach no other.
  std::optional<runtime::Client> ownClient;
  const Attribute infeed = op.attr("infeed");
  if (infeed) {
    runtime::Plugin plugin = runtime::Plugin::load(plugin_);
    plugin.requireExtension("interpreter.run_parallel with infeed on plugin devices");
    ownClient.emplace(plugin, runtime::ClientOptions{1, 0});
  }
  const runtime::Client& devices = ownClient ? *ownClient : client();
  runtime::CompileOptions options;
  options.name = "<run_parallel of @" + grid.programs[0] + ">";
  options.entry = grid.programs[0];
  options.replicas = grid.replicas;
  options.partitions = grid.partitions;
  const bool oneFunction = std::all_of(grid.programs.begin(), grid.programs.end(),
                                       [&](const std::string& p) { return p == grid.programs[0]; });
  if (!oneFunction) options.processEntries = grid.programs;  // they exchange with send/recv
  runtime::Executable executable = devices.compile(stablehlo::printModule(module), options);

  // The inputs are each process's parameters in turn, replica-major.
  const size_t processes = grid.programs.size();
  size_t expected = 0;
  for (const std::string& name : grid.programs) expected += module.lookup(name)->numParams();
  if (inputs.size() != expected)
    throw Error(ErrorKind::Runtime, std::string(op.name()) + ": the programs take " + std::to_string(expected) +
                                        " inputs, " + std::to_string(inputs.size()) + " given");
  std::vector<runtime::Device> all = devices.devices();
  if (processes > all.size())
    throw Error(ErrorKind::Runtime, std::string(op.name()) + ": " + std::to_string(processes) + " processes, " +
                                        std::to_string(all.size()) + " devices");
  std::vector<runtime::Device> used(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(processes));
  // The infeed list's functions give, in order, the values the device's infeed holds.
  if (infeed) {
    interp::Interpreter interpreter(module);
    for (const Attribute& fn : infeed.asArray())
      for (const interp::HostValue& value : interpreter.call(fn.asString(), {})) used[0].infeed(value.tensor());
  }
  std::vector<std::vector<runtime::Buffer>> buffers(processes);
  std::vector<std::vector<const runtime::Buffer*>> args(processes);
  size_t next = 0;
  for (size_t k = 0; k < processes; ++k) {
    for (size_t i = 0, n = module.lookup(grid.programs[k])->numParams(); i < n; ++i, ++next) {
      const interp::HostValue& input = inputs[next];
      buffers[k].push_back(input.isToken() ? devices.token(used[k]) : devices.bufferFromHost(input.tensor(), used[k]));
    }
    for (const runtime::Buffer& b : buffers[k]) args[k].push_back(&b);
  }
  runtime::ExecuteOptions quiet;
  if (devices.plugin().minorVersion() >= 7)  // (older plugins print to standard output)
    quiet.print = [](std::string_view) {};  // interpreter.print output is not part of a test
  std::vector<runtime::Executable::Execution> executions = executable.execute(args, used, quiet);
  interp::HostValues results;
  for (auto& execution : executions) {
    execution.done.await();
    for (const runtime::Buffer& out : execution.outputs)
      results.push_back(out.type().isToken() ? interp::HostValue::token() : interp::HostValue(out.toLiteral()));
  }
  return results;
}

}  // namespace kiln::testing
