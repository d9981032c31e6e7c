// interpreter.run_parallel as one multi-device executable through a plugin.
#include "testing/parallel_on_devices.h"

#include <algorithm>

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
  if (op.attr("infeed")) return "it feeds infeed";
  Grid grid = gridOf(op);
  if (grid.programs.empty()) return "it names no program";
  if (std::any_of(grid.programs.begin(), grid.programs.end(), [&](const std::string& p) { return p != grid.programs[0]; }))
    return "its processes run different functions (one executable runs one)";
  const Function* fn = module.lookup(grid.programs[0]);
  if (!fn) return "@" + grid.programs[0] + " is not in the module";
  for (const std::vector<Type>& types : {fn->paramTypes(), fn->resultTypes()})
    for (const Type& t : types)
      if (!t.isTensor()) return "@" + grid.programs[0] + " passes a " + t.str() + " (the plugin API passes tensors)";
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
  const runtime::Client& devices = client();
  runtime::CompileOptions options;
  options.name = "<run_parallel of @" + grid.programs[0] + ">";
  options.entry = grid.programs[0];
  options.replicas = grid.replicas;
  options.partitions = grid.partitions;
  runtime::Executable executable = devices.compile(stablehlo::printModule(module), options);

  const size_t processes = grid.programs.size();
  const size_t numParams = module.lookup(grid.programs[0])->numParams();
  if (inputs.size() != processes * numParams)
    throw Error(ErrorKind::Runtime, std::string(op.name()) + ": the programs take " +
                                        std::to_string(processes * numParams) + " inputs, " +
                                        std::to_string(inputs.size()) + " given");
  std::vector<runtime::Device> all = devices.devices();
  std::vector<runtime::Device> used(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min(processes, all.size())));
  std::vector<std::vector<runtime::Buffer>> buffers(processes);
  std::vector<std::vector<const runtime::Buffer*>> args(processes);
  for (size_t k = 0; k < processes && k < used.size(); ++k) {
    for (size_t i = 0; i < numParams; ++i)
      buffers[k].push_back(devices.bufferFromHost(inputs[k * numParams + i].tensor(), used[k]));
    for (const runtime::Buffer& b : buffers[k]) args[k].push_back(&b);
  }
  std::vector<runtime::Executable::Execution> executions = executable.execute(args, used);
  interp::HostValues results;
  for (auto& execution : executions) {
    execution.done.await();
    for (const runtime::Buffer& out : execution.outputs) results.push_back(out.toLiteral());
  }
  return results;
}

}  // namespace kiln::testing
