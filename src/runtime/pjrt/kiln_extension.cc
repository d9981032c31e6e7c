// The kiln extension (include/kiln/pjrt/kiln_extension.h): what kiln's plugins offer
// beyond PJRT's core table, over the same objects.
#include "runtime/pjrt/kiln_extension.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/plugin_core.h"
#include "runtime/host_memory.h"
#include "runtime/buffer_types.h"
#include "runtime/pjrt/executables.h"
#include "runtime/pjrt/pjrt_call.h"

namespace kiln::runtime::pjrt {

namespace {

PJRT_Error* kilnExecute(KILN_Execute_Args* args) {
  return call("KILN_Execute", args, [](KILN_Execute_Args& a, const Fits& fits) {
    PJRT_LoadedExecutable_Execute_Args& execute = need(a.execute, "execute");
    if (execute.struct_size == 0) invalid("execute's struct_size is 0");
    ExecuteControl control;
    control.label = a.label;
    control.timeLimitNs = a.time_limit_ns;
    control.print = a.print;
    control.printUser = a.print_user;
    control.printRelease = a.print_release;
    control.numArgsPerDevice = fits(a.num_args_per_device) ? a.num_args_per_device : nullptr;
    // The caller's execute args, read as PJRT_LoadedExecutable_Execute reads them.
    PJRT_LoadedExecutable_Execute_Args copy{};
    const size_t given = std::min(execute.struct_size, sizeof copy);
    std::memcpy(&copy, &execute, given);
    pjrt::execute(copy, Fits(&copy, given), control);
    std::memcpy(&execute, &copy, given);
  });
}

PJRT_Error* eventCancel(KILN_Event_Cancel_Args* args) {
  return call("KILN_Event_Cancel", args, [](KILN_Event_Cancel_Args& a, const Fits&) {
    PJRT_Event& event = need(a.event, "event");
    if (!event.execution) invalid("the event is not an execution's completion event");
    event.execution->cancel();
  });
}

PJRT_Error* executableStatistics(KILN_Executable_Statistics_Args* args) {
  return call("KILN_Executable_Statistics", args, [](KILN_Executable_Statistics_Args& a, const Fits&) {
    PJRT_Executable& executable = need(a.executable, "executable");
    CompiledProgramHandle& program = *executable.program;
    executable.statisticNames.clear();
    executable.statistics.clear();
    std::vector<std::pair<std::string, double>> values = program.kiln->info->program->statistics();
    for (auto& [name, value] : values) executable.statisticNames.push_back(std::move(name));
    for (size_t i = 0; i < values.size(); ++i)
      executable.statistics.push_back(floatValue(executable.statisticNames[i], values[i].second));
    a.values = executable.statistics.data();
    a.num_values = executable.statistics.size();
  });
}

PJRT_Error* executableText(KILN_Executable_Text_Args* args) {
  return call("KILN_Executable_Text", args, [](KILN_Executable_Text_Args& a, const Fits&) {
    PJRT_Executable& executable = need(a.executable, "executable");
    if (!a.name) invalid("name is null");
    const CompiledProgram& program = *executable.program->kiln->info->program;
    std::optional<std::string> text = program.text(a.name);
    if (!text) {
      std::string known;
      for (const std::string& name : program.textNames()) known += (known.empty() ? "" : ", ") + name;
      invalid(std::string("no text '") + a.name + "' of this executable (it has: " + known + ")");
    }
    executable.text = std::move(*text);
    a.text = executable.text.data();
    a.text_size = executable.text.size();
  });
}

PJRT_Error* withEntry(KILN_LoadedExecutable_WithEntry_Args* args) {
  return call("KILN_LoadedExecutable_WithEntry", args,
              [](KILN_LoadedExecutable_WithEntry_Args& a, const Fits& fits) {
                fits.requireOut(a.entry_executable, "entry_executable");
                PJRT_LoadedExecutable& loaded = loadedOf(a.executable);
                if (!a.entry) invalid("entry is null");
                a.entry_executable = load(*loaded.client, core::withEntry(*loaded.program->kiln, a.entry), loaded.portable);
              });
}

// The tensor type a feed names: one of PJRT's element types (any int a C caller stored).
Type feedType(int type, const int64_t* dims, size_t numDims) {
  const std::optional<DType> dtype = dtypeOf(type);
  if (!dtype)
    throw ApiFailure(FailureCode::Unimplemented, "unsupported: buffer type " + std::to_string(type) + " in a feed");
  return tensorType(*dtype, dims, numDims);
}

PJRT_Device& feedDevice(PJRT_Device* device) {
  PJRT_Device& d = need(device, "device");
  if (!d.core) invalid("device " + std::to_string(d.id) + " is not addressable");
  return d;
}

PJRT_Error* deviceInfeed(KILN_Device_Infeed_Args* args) {
  return call("KILN_Device_Infeed", args, [](KILN_Device_Infeed_Args& a, const Fits&) {
    PJRT_Device& device = feedDevice(a.device);
    core::infeed(*device.core, feedType(rawEnum(a.type), a.dims, a.num_dims), a.data);
  });
}

PJRT_Error* deviceOutfeed(KILN_Device_Outfeed_Args* args) {
  return call("KILN_Device_Outfeed", args, [](KILN_Device_Outfeed_Args& a, const Fits& fits) {
    fits.requireOut(a.event, "event");
    PJRT_Device& device = feedDevice(a.device);
    EventRef done = core::outfeed(*device.core, feedType(rawEnum(a.type), a.dims, a.num_dims), a.dst, a.dst_size);
    a.event = handedOut(new PJRT_Event{std::move(done), nullptr});
  });
}

PJRT_Error* deserializeWithSource(KILN_Executable_DeserializeWithSource_Args* args) {
  return call("KILN_Executable_DeserializeWithSource", args,
              [](KILN_Executable_DeserializeWithSource_Args& a, const Fits& fits) {
                fits.requireOut(a.loaded_executable, "loaded_executable");
                PJRT_Client& client = need(a.client, "client");
                a.loaded_executable = deserialize(client, a.serialized_executable, a.serialized_executable_size,
                                                  a.source_name, a.source, a.source_size);
              });
}

PJRT_Error* executableSignature(KILN_Executable_Signature_Args* args) {
  return call("KILN_Executable_Signature", args, [](KILN_Executable_Signature_Args& a, const Fits&) {
    PJRT_Executable& executable = need(a.executable, "executable");
    const ExecutableCore& kiln = *executable.program->kiln;
    const size_t processes = static_cast<size_t>(kiln.info->placement.processes());
    if (a.process >= processes)
      invalid("process " + std::to_string(a.process) + " does not exist (the executable runs " +
              std::to_string(processes) + ")");
    const ProgramInfo& info = *kiln.infoOf(a.process);
    setString(info.program->entry().name(), a.function, a.function_size);
    executable.parameterTypes = valueTypes(info.params);
    executable.resultTypes = valueTypes(info.results);
    a.num_parameters = executable.parameterTypes.types.size();
    a.parameter_types = executable.parameterTypes.types.data();
    a.parameter_ranks = executable.parameterTypes.ranks.data();
    a.parameter_dims = executable.parameterTypes.dims.data();
    a.num_results = executable.resultTypes.types.size();
    a.result_types = executable.resultTypes.types.data();
    a.result_ranks = executable.resultTypes.ranks.data();
    a.result_dims = executable.resultTypes.dims.data();
  });
}

}  // namespace

const PJRT_Extension_Base* kilnExtension() {
  static const KILN_Extension extension = [] {
    KILN_Extension e{};
    e.base.struct_size = sizeof e;
    const int type = KILN_PJRT_EXTENSION_TYPE;
    std::memcpy(&e.base.type, &type, sizeof type);
    e.version = KILN_PJRT_EXTENSION_VERSION;
    e.execute = kilnExecute;
    e.event_cancel = eventCancel;
    e.executable_statistics = executableStatistics;
    e.executable_text = executableText;
    e.loaded_executable_with_entry = withEntry;
    e.device_infeed = deviceInfeed;
    e.device_outfeed = deviceOutfeed;
    e.executable_deserialize_with_source = deserializeWithSource;
    e.executable_signature = executableSignature;
    return e;
  }();
  return &extension.base;
}

}  // namespace kiln::runtime::pjrt
