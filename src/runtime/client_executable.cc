// The RAII wrapper's executables (client.h): their description, serialization, texts,
// statistics, other entries, and executions on one device or several.
#include <algorithm>
#include <cstring>

#include "runtime/client_calls.h"
#include "runtime/named_values.h"

namespace kiln::runtime {
namespace {

// How many replicas and partitions the executable was compiled for.
std::pair<size_t, size_t> gridOf(const Plugin& plugin, PJRT_Executable* exe) {
  PJRT_Executable_NumReplicas_Args replicas{};
  replicas.executable = exe;
  KILN_PJRT(plugin, PJRT_Executable_NumReplicas, replicas);
  PJRT_Executable_NumPartitions_Args partitions{};
  partitions.executable = exe;
  KILN_PJRT(plugin, PJRT_Executable_NumPartitions, partitions);
  return {replicas.num_replicas, partitions.num_partitions};
}

}  // namespace

Executable::Executable(Plugin plugin, std::shared_ptr<PJRT_Client> client, PJRT_LoadedExecutable* handle)
    : plugin_(plugin),
      client_(std::move(client)),
      handle_(owned(plugin, handle, &PJRT_Api::PJRT_LoadedExecutable_Destroy,
                    &PJRT_LoadedExecutable_Destroy_Args::executable)) {
  PJRT_LoadedExecutable_AddressableDevices_Args where{};
  where.executable = handle;
  KILN_PJRT(plugin_, PJRT_LoadedExecutable_AddressableDevices, where);
  devices_.assign(where.addressable_devices, where.addressable_devices + where.num_addressable_devices);
  // Each process's function may differ (CompileOptions::processEntries), which only the
  // kiln extension can tell.
  const std::shared_ptr<PJRT_Executable> exe = executable();
  const size_t n = std::max<size_t>(1, devices_.size());
  if (plugin_.extension()) {
    // Under MPI this rank's one device runs the process of the rank's index.
    const auto [replicas, partitions] = gridOf(plugin_, exe.get());
    size_t first = 0;
    if (replicas * partitions > n) {
      PJRT_Client_ProcessIndex_Args rank{};
      rank.client = client_.get();
      KILN_PJRT(plugin_, PJRT_Client_ProcessIndex, rank);
      first = static_cast<size_t>(rank.process_index);
    }
    for (size_t d = 0; d < n; ++d) {
      KILN_Executable_Signature_Args signature{};
      signature.executable = exe.get();
      signature.process = first + d;
      KILN_EXTENSION(plugin_, executable_signature, signature);
      numResults_.push_back(signature.num_results);
    }
  } else {
    PJRT_Executable_NumOutputs_Args outputs{};
    outputs.executable = exe.get();
    KILN_PJRT(plugin_, PJRT_Executable_NumOutputs, outputs);
    numResults_.assign(n, outputs.num_outputs);
  }
}

std::shared_ptr<PJRT_Executable> Executable::executable() const {
  PJRT_LoadedExecutable_GetExecutable_Args args{};
  args.loaded_executable = handle();
  KILN_PJRT(plugin_, PJRT_LoadedExecutable_GetExecutable, args);
  return owned(plugin_, args.executable, &PJRT_Api::PJRT_Executable_Destroy, &PJRT_Executable_Destroy_Args::executable);
}

size_t Executable::numResults(size_t process) const {
  return numResults_[process < numResults_.size() ? process : 0];
}

ExecutableInfo Executable::info(size_t process) const {
  const std::shared_ptr<PJRT_Executable> exe = executable();
  ExecutableInfo info;
  PJRT_Executable_Name_Args name{};
  name.executable = exe.get();
  KILN_PJRT(plugin_, PJRT_Executable_Name, name);
  info.name.assign(name.executable_name, name.executable_name_size);
  const auto [replicas, partitions] = gridOf(plugin_, exe.get());
  info.replicas = std::max(1, static_cast<int>(replicas));
  info.partitions = std::max(1, static_cast<int>(partitions));
  if (plugin_.extension()) {
    KILN_Executable_Signature_Args signature{};
    signature.executable = exe.get();
    signature.process = process;
    KILN_EXTENSION(plugin_, executable_signature, signature);
    info.name.assign(signature.function, signature.function_size);
    info.parameters = typesOf(signature.num_parameters, signature.parameter_types, signature.parameter_ranks,
                              signature.parameter_dims);
    info.results =
        typesOf(signature.num_results, signature.result_types, signature.result_ranks, signature.result_dims);
  } else {
    PJRT_Executable_OutputElementTypes_Args types{};
    types.executable = exe.get();
    KILN_PJRT(plugin_, PJRT_Executable_OutputElementTypes, types);
    PJRT_Executable_OutputDimensions_Args dims{};
    dims.executable = exe.get();
    KILN_PJRT(plugin_, PJRT_Executable_OutputDimensions, dims);
    info.results = typesOf(types.num_output_types, types.output_types, dims.dim_sizes, dims.dims);
  }
  // Estimates, where the plugin makes them (XLA's names for them).
  PJRT_Executable_GetCostAnalysis_Args costs{};
  costs.executable = exe.get();
  try {
    KILN_PJRT(plugin_, PJRT_Executable_GetCostAnalysis, costs);
    for (size_t i = 0; i < costs.num_properties; ++i) {
      const PJRT_NamedValue& v = costs.properties[i];
      const std::string_view key(v.name, v.name_size);
      const double value = v.type == PJRT_NamedValue_kFloat   ? v.float_value
                           : v.type == PJRT_NamedValue_kInt64 ? static_cast<double>(v.int64_value)
                                                              : 0;
      if (key == "flops") info.flops = value;
      if (key == "bytes accessed") info.bytesAccessed = value;
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unsupported) throw;
  }
  PJRT_Executable_GetCompiledMemoryStats_Args memory{};
  memory.executable = exe.get();
  try {
    KILN_PJRT(plugin_, PJRT_Executable_GetCompiledMemoryStats, memory);
    info.tempBytes = memory.temp_size_in_bytes;
    info.peakLiveBytes = memory.peak_memory_in_bytes;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unsupported) throw;
  }
  return info;
}

std::string Executable::serialize() const {
  const std::shared_ptr<PJRT_Executable> exe = executable();
  PJRT_Executable_Serialize_Args args{};
  args.executable = exe.get();
  KILN_PJRT(plugin_, PJRT_Executable_Serialize, args);
  std::string bytes(args.serialized_bytes, args.serialized_bytes_size);
  if (args.serialized_executable_deleter) args.serialized_executable_deleter(args.serialized_executable);
  return bytes;
}

void Executable::launch(size_t numDevices, PJRT_Buffer* const* const* argLists, size_t numArgs,
                        const size_t* numArgsPerDevice, PJRT_Buffer** const* outLists, PJRT_Event** done,
                        PJRT_Device* executeDevice, const ExecuteOptions& options) const {
  PJRT_ExecuteOptions settings{};
  settings.struct_size = sizeof settings;
  settings.non_donatable_input_indices = options.keep.data();
  settings.num_non_donatable_input_indices = options.keep.size();
  PJRT_LoadedExecutable_Execute_Args e{};
  e.struct_size = sizeof e;
  e.executable = handle();
  e.options = &settings;
  e.argument_lists = argLists;
  e.num_devices = numDevices;
  e.num_args = numArgs;
  e.output_lists = outLists;
  e.device_complete_events = done;
  e.execute_device = executeDevice;
  // (A label only prefixes errors: a plugin without the kiln extension goes without.)
  if ((options.label.empty() || !plugin_.extension()) && !options.timeLimit && !options.print && !numArgsPerDevice) {
    KILN_PJRT(plugin_, PJRT_LoadedExecutable_Execute, e);
    return;
  }
  KILN_Execute_Args k{};
  k.execute = &e;
  k.label = options.label.empty() ? nullptr : options.label.c_str();
  if (options.timeLimit) k.time_limit_ns = std::max<int64_t>(1, options.timeLimit->count());
  k.num_args_per_device = numArgsPerDevice;
  // The callback lives until the plugin releases it (or the call fails).
  using Print = std::function<void(std::string_view)>;
  std::unique_ptr<Print> print;
  if (options.print) {
    print = std::make_unique<Print>(options.print);
    k.print = [](void* user, const char* text, size_t size) { (*static_cast<Print*>(user))(std::string_view(text, size)); };
    k.print_user = print.get();
    k.print_release = [](void* user) { delete static_cast<Print*>(user); };
  }
  KILN_EXTENSION(plugin_, execute, k);
  (void)print.release();  // the plugin's now
}

Executable Executable::withEntry(const std::string& name) const {
  KILN_LoadedExecutable_WithEntry_Args args{};
  args.executable = handle();
  args.entry = name.c_str();
  KILN_EXTENSION(plugin_, loaded_executable_with_entry, args);
  return Executable(plugin_, client_, args.entry_executable);
}

std::vector<std::pair<std::string, double>> Executable::statistics() const {
  if (!plugin_.extension()) return {};  // it can say nothing
  const std::shared_ptr<PJRT_Executable> exe = executable();
  KILN_Executable_Statistics_Args args{};
  args.executable = exe.get();
  KILN_EXTENSION(plugin_, executable_statistics, args);
  std::vector<std::pair<std::string, double>> values;
  for (size_t i = 0; i < args.num_values; ++i)
    values.emplace_back(std::string(args.values[i].name, args.values[i].name_size), args.values[i].float_value);
  return values;
}

std::string Executable::text(const std::string& name) const {
  const std::shared_ptr<PJRT_Executable> exe = executable();
  KILN_Executable_Text_Args args{};
  args.executable = exe.get();
  args.name = name.c_str();
  KILN_EXTENSION(plugin_, executable_text, args);
  return std::string(args.text, args.text_size);
}

Executable::Execution Executable::execute(const std::vector<const Buffer*>& args, const Device& device,
                                          const ExecuteOptions& options) const {
  // One device: no lists of lists (this is every eager op's path).
  if (devices_.size() > 1)
    throw Error(ErrorKind::Usage, "the executable runs on " + std::to_string(devices_.size()) +
                                      " devices: execute it with an argument list for each");
  if (devices_.size() == 1 && devices_[0] != device.handle())
    throw Error(ErrorKind::Usage, "the executable runs on device " +
                                      std::to_string(Device(plugin_, client_, devices_[0]).id()) +
                                      " (its device assignment), not on device " + std::to_string(device.id()));
  // The handles' lists on the stack for the few arguments and results most programs have.
  constexpr size_t kOnStack = 8;
  const size_t numOut = numResults(0);
  PJRT_Buffer* argStack[kOnStack];
  PJRT_Buffer* outStack[kOnStack] = {};
  std::vector<PJRT_Buffer*> argHeap, outHeap;
  PJRT_Buffer** argList = args.size() <= kOnStack ? argStack : (argHeap.resize(args.size()), argHeap.data());
  PJRT_Buffer** outList = numOut <= kOnStack ? outStack : (outHeap.resize(numOut, nullptr), outHeap.data());
  for (size_t i = 0; i < args.size(); ++i) argList[i] = args[i] ? args[i]->handle() : nullptr;
  PJRT_Buffer* const* argLists = argList;
  PJRT_Event* done = nullptr;
  launch(1, &argLists, args.size(), nullptr, &outList, &done, devices_.empty() ? device.handle() : nullptr, options);
  Execution execution{{}, Event(plugin_, done)};
  execution.outputs.reserve(numOut);
  for (size_t r = 0; r < numOut; ++r) execution.outputs.emplace_back(plugin_, client_, outList[r]);
  return execution;
}

std::vector<Executable::Execution> Executable::execute(const std::vector<std::vector<const Buffer*>>& args,
                                                       const std::vector<Device>& devices,
                                                       const ExecuteOptions& options) const {
  if (args.size() != devices.size())
    throw Error(ErrorKind::Usage, std::to_string(args.size()) + " argument lists for " +
                                      std::to_string(devices.size()) + " devices");
  if (devices.size() == 1 && devices_.size() <= 1) {
    Execution one = execute(args[0], devices[0], options);
    return {one};
  }
  const size_t n = devices.size();
  for (size_t d = 0; d < n; ++d)
    if (d >= devices_.size() || devices[d].handle() != devices_[d]) {
      std::string ids;
      for (PJRT_Device* device : devices_) ids += (ids.empty() ? "" : ", ") + std::to_string(Device(plugin_, client_, device).id());
      throw Error(ErrorKind::Usage, "the executable runs on devices [" + ids +
                                        "] in that order (its device assignment): execute it there");
    }
  if (n != devices_.size())
    throw Error(ErrorKind::Usage, "the executable runs on " + std::to_string(devices_.size()) + " devices, not " +
                                      std::to_string(n));
  size_t numArgs = args.empty() ? 0 : args[0].size();
  std::vector<size_t> counts(n);  // per device: processes may run different functions
  bool sameCounts = true;
  std::vector<std::vector<PJRT_Buffer*>> argHandles(n), outHandles(n);
  std::vector<PJRT_Buffer* const*> argLists(n);
  std::vector<PJRT_Buffer**> outLists(n);
  std::vector<PJRT_Event*> done(n, nullptr);
  for (size_t d = 0; d < n; ++d) {
    counts[d] = args[d].size();
    sameCounts &= counts[d] == numArgs;
    for (const Buffer* b : args[d]) argHandles[d].push_back(b ? b->handle() : nullptr);
    outHandles[d].assign(numResults(d), nullptr);
    argLists[d] = argHandles[d].data();
    outLists[d] = outHandles[d].data();
  }
  launch(n, argLists.data(), numArgs, sameCounts ? nullptr : counts.data(), outLists.data(), done.data(), nullptr,
         options);
  std::vector<Execution> executions;
  for (size_t d = 0; d < n; ++d) {
    executions.push_back({{}, Event(plugin_, done[d])});
    for (PJRT_Buffer* out : outHandles[d]) executions.back().outputs.emplace_back(plugin_, client_, out);
  }
  return executions;
}

void Executable::Execution::cancel() const {
  KILN_Event_Cancel_Args args{};
  args.event = done.handle();
  KILN_EXTENSION(done.plugin(), event_cancel, args);
}

}  // namespace kiln::runtime
