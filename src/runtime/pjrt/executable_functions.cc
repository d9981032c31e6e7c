// PJRT's compile, executables and executions, over the plugin's: programs arrive as MLIR
// text with a serialized xla.CompileOptionsProto (compile_options.h), and run on the
// devices the options assign, one process per device.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/fingerprint.h"
#include "passes/buffer_assignment.h"
#include "runtime/plugin_core.h"
#include "runtime/compile_options_proto.h"
#include "runtime/serialized_executable.h"
#include "stablehlo/bytecode.h"
#include "stablehlo/printer.h"
#include "runtime/buffer_types.h"
#include "runtime/pjrt/executables.h"
#include "runtime/pjrt/pjrt_call.h"
#include "runtime/pjrt/pjrt_functions.h"
#include "runtime/pjrt/pjrt_objects.h"

namespace kiln::runtime::pjrt {

namespace {

PJRT_Device* deviceWithId(const PJRT_Client& client, int32_t id) {
  for (PJRT_Device* device : client.handles)
    if (device->id == id) return device;
  invalid("the device assignment names device " + std::to_string(id) + ", which the client does not have (" +
          std::to_string(client.handles.size()) + " devices)");
}

std::shared_ptr<CompiledProgramHandle> handleOf(std::unique_ptr<ExecutableCore> kiln) {
  auto handle = std::make_shared<CompiledProgramHandle>();
  handle->kiln = std::move(kiln);
  const ExecutableCore& core = *handle->kiln;
  const ProgramInfo& info = *core.info;
  handle->fingerprint = fingerprint(info.program->module()).hex();
  // XLA's names for the same two estimates.
  handle->costs = {floatValue("flops", info.flops), floatValue("bytes accessed", info.bytesAccessed)};
  // Processes that run different functions (kiln.process_entries) each mark their own
  // parameters, and kiln's execute takes one list for all: they donate nothing (PJRT
  // allows a plugin not to donate).
  const Function& entry = info.program->entry();
  if (core.processes.empty())
    for (size_t i = 0; i < entry.numParams(); ++i)
      if (passes::marksDonation(entry, i)) handle->donors.push_back(i);
  handle->outputs = valueTypes(info.results);
  for (size_t i = 0; i < info.results.size(); ++i) {
    static const char kDevice[] = "device";
    handle->outputMemoryKinds.push_back(kDevice);
    handle->outputMemoryKindSizes.push_back(sizeof kDevice - 1);
  }
  return handle;
}

// What Serialize and GetDeviceAssignment return: bytes the caller frees with the deleter
// they come with.
struct OwnedBytes {
  std::string bytes;
};

void writeDump(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw ApiFailure(FailureCode::InvalidArgument, "KILN_DUMP_PROGRAMS: cannot write " + path);
}

// With KILN_DUMP_PROGRAMS=<folder>, every program a client compiles is written there as
// it came (program-<pid>-<n>.mlirbc for bytecode, .mlir for text) and, for bytecode, as
// the StableHLO text kiln read it into (program-<pid>-<n>.mlir): for debugging, and for
// golden tests of what a framework sends. Returns the files' common stem (empty: no dump).
std::string dumpProgram(std::string_view code, const char* extension) {
  const char* dir = std::getenv("KILN_DUMP_PROGRAMS");
  if (!dir || !*dir) return {};
  static std::atomic<int> count{0};
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  const std::string stem =
      (std::filesystem::path(dir) / ("program-" + std::to_string(::getpid()) + "-" + std::to_string(count++))).string();
  writeDump(stem + extension, code);
  return stem;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

CompileSettings::Optimization optimizationOf(const std::string& value) {
  if (value == "default" || value == "full") return CompileSettings::Optimization::Full;
  if (value == "fast") return CompileSettings::Optimization::Fast;
  if (value == "tiered") return CompileSettings::Optimization::Tiered;
  invalid("kiln.optimization is '" + value + "' (default, fast, full or tiered)");
}

// The parameters an execution takes over: those the program marks donated (as JAX marks
// the arguments of jit(donate_argnums=...)), except the ones the caller keeps this time.
std::vector<size_t> donatedParameters(const std::vector<size_t>& donors, const PJRT_ExecuteOptions* options) {
  const int64_t* kept = nullptr;
  size_t numKept = 0;
  if (options) {
    const Fits fits(options, options->struct_size);
    if (fits(options->num_non_donatable_input_indices)) {
      kept = options->non_donatable_input_indices;
      numKept = options->num_non_donatable_input_indices;
      if (numKept > 0 && !kept) invalid("non_donatable_input_indices is null");
    }
  }
  if (numKept == 0) return donors;
  std::vector<size_t> donated;
  for (size_t i : donors)
    if (std::find(kept, kept + numKept, static_cast<int64_t>(i)) == kept + numKept) donated.push_back(i);
  return donated;
}

}  // namespace

ValueTypes valueTypes(const std::vector<Type>& types) {
  ValueTypes out;
  for (const Type& type : types) {
    out.types.push_back(type.isToken()    ? PJRT_Buffer_Type_TOKEN
                        : type.isTensor() ? bufferTypeOf(type.dtype())
                                          : PJRT_Buffer_Type_INVALID);
    const Shape& shape = type.isTensor() ? type.shape() : Shape{};
    out.dims.insert(out.dims.end(), shape.begin(), shape.end());
    out.ranks.push_back(shape.size());
  }
  return out;
}

PJRT_LoadedExecutable* load(PJRT_Client& client, std::unique_ptr<ExecutableCore> kiln, bool portable) {
  auto loaded = std::make_unique<PJRT_LoadedExecutable>();
  loaded->program = handleOf(std::move(kiln));
  loaded->client = &client;
  loaded->portable = portable;
  const Placement& where = loaded->program->kiln->info->placement;
  if (client.core->transport && where.processes() > 1) {
    // Under the mpi communicator each rank runs its own process, on its one device
    // (process r * partitions + p runs on rank r * partitions + p).
    loaded->devices = client.handles;
    const int rank = static_cast<int>(client.core->transport->rank());
    loaded->logicalIds.push_back({rank / where.partitions, rank % where.partitions});
  } else if (!portable) {
    for (size_t i = 0; i < static_cast<size_t>(where.processes()); ++i) {
      loaded->devices.push_back(where.devices.empty() ? client.handles.at(i) : deviceWithId(client, where.devices[i]));
      const int process = static_cast<int>(i);
      loaded->logicalIds.push_back({process / where.partitions, process % where.partitions});
    }
  }
  return handedOut(loaded.release());
}

PJRT_LoadedExecutable* deserialize(PJRT_Client& client, const char* bytes, size_t size, const char* sourceName,
                                   const char* source, size_t sourceSize) {
  if (!bytes && size > 0) invalid("serialized_executable is null");
  std::optional<std::string_view> text;
  if (source) text = std::string_view(source, sourceSize);
  std::unique_ptr<ExecutableCore> kiln =
      core::deserialize(*client.core, std::string_view(bytes ? bytes : "", size), sourceName ? sourceName : "", text);
  // The bytes do not say whether it was compiled portable: one process placed on no
  // device in particular runs where execute says, else on the client's first device.
  const Placement& where = kiln->info->placement;
  const bool portable = where.processes() == 1 && where.devices.empty();
  return pjrt::load(client, std::move(kiln), portable);
}

const CompiledProgramHandle& programOf(const PJRT_Executable* executable) {
  return *need(executable, "executable").program;
}

PJRT_LoadedExecutable& loadedOf(PJRT_LoadedExecutable* executable) {
  PJRT_LoadedExecutable& loaded = need(executable, "executable");
  if (loaded.deleted) throw ApiFailure(FailureCode::FailedPrecondition, "the executable was deleted");
  return loaded;
}

namespace functions {

PJRT_Error* clientCompile(PJRT_Client_Compile_Args* args) {
  return call("PJRT_Client_Compile", args, [](PJRT_Client_Compile_Args& a, const Fits& fits) {
    fits.requireOut(a.executable, "executable");
    PJRT_Client& client = need(a.client, "client");
    const PJRT_Program& program = need(a.program, "program");
    if (program.struct_size < PJRT_Program_STRUCT_SIZE)
      invalid("program's struct_size is " + std::to_string(program.struct_size));
    const std::string_view format(program.format ? program.format : "", program.format ? program.format_size : 0);
    if (format != "mlir")
      throw ApiFailure(FailureCode::Unimplemented, "unsupported: program format '" + std::string(format) +
                                                     "' (kiln compiles StableHLO as format \"mlir\")");
    if (program.code_size > 0 && !program.code) invalid("program code is null");
    std::string_view code(program.code, program.code_size);
    if (a.compile_options_size > 0 && !a.compile_options) invalid("compile_options is null");
    const proto::CompileOptions options =
        proto::readCompileOptions(std::string_view(a.compile_options ? a.compile_options : "", a.compile_options_size));

    // kiln's own compile settings, by the names the kiln extension's header gives them;
    // any other override is one of kiln's named options.
    core::CompileRequest request;
    request.code = code;
    request.replicas = options.replicas;
    request.partitions = options.partitions;
    request.spmd = options.spmd;
    if (!options.portable) request.deviceAssignment = options.devices;
    for (size_t i = 0; i < options.overrides.size(); ++i) {
      const auto& [name, value] = options.overrides[i];
      if (name == "kiln.entry") request.entry = value;
      else if (name == "kiln.dump_dir") request.settings.dumpDir = value;
      else if (name == "kiln.source_name") request.name = value.empty() ? "<program>" : value;
      else if (name == "kiln.process_entries") request.processEntries = splitList(value);
      else if (name == "kiln.optimization") request.settings.optimization = optimizationOf(value);
      else core::setCompileOption(request.settings, name, value, "env_option_overrides[" + std::to_string(i) + "]");
    }
    for (int32_t id : request.deviceAssignment) deviceWithId(client, id);
    // What frameworks send is MLIR bytecode (a portable artifact): read as its StableHLO
    // text, which every later step (messages, serialized executables) then sees.
    const bool bytecode = stablehlo::isBytecode(code);
    const std::string dumped = dumpProgram(code, bytecode ? ".mlirbc" : ".mlir");
    std::string text;
    if (bytecode) {
      text = stablehlo::bytecodeToText(code, request.name);
      request.code = text;
      if (!dumped.empty()) writeDump(dumped + ".mlir", text);
    }
    a.executable = load(client, core::compile(*client.core, request), options.portable);
  });
}

PJRT_Error* loadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  return call("PJRT_LoadedExecutable_Destroy", args, [](PJRT_LoadedExecutable_Destroy_Args& a, const Fits&) {
    destroyed(a.executable, "executable");
  });
}

PJRT_Error* loadedExecutableGetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args) {
  return call("PJRT_LoadedExecutable_GetExecutable", args,
              [](PJRT_LoadedExecutable_GetExecutable_Args& a, const Fits& fits) {
                fits.requireOut(a.executable, "executable");
                a.executable = handedOut(new PJRT_Executable{need(a.loaded_executable, "loaded_executable").program});
              });
}

PJRT_Error* loadedExecutableAddressableDevices(PJRT_LoadedExecutable_AddressableDevices_Args* args) {
  return call("PJRT_LoadedExecutable_AddressableDevices", args,
              [](PJRT_LoadedExecutable_AddressableDevices_Args& a, const Fits&) {
                const PJRT_LoadedExecutable& loaded = need(a.executable, "executable");
                a.addressable_devices = loaded.devices.data();
                a.num_addressable_devices = loaded.devices.size();
              });
}

PJRT_Error* loadedExecutableAddressableDeviceLogicalIds(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args* args) {
  return call("PJRT_LoadedExecutable_AddressableDeviceLogicalIds", args,
              [](PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args& a, const Fits&) {
                PJRT_LoadedExecutable& loaded = need(a.executable, "executable");
                a.addressable_device_logical_ids = loaded.logicalIds.data();
                a.num_addressable_device_logical_ids = loaded.logicalIds.size();
              });
}

PJRT_Error* loadedExecutableDelete(PJRT_LoadedExecutable_Delete_Args* args) {
  return call("PJRT_LoadedExecutable_Delete", args,
              [](PJRT_LoadedExecutable_Delete_Args& a, const Fits&) { need(a.executable, "executable").deleted = true; });
}

PJRT_Error* loadedExecutableIsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args) {
  return call("PJRT_LoadedExecutable_IsDeleted", args, [](PJRT_LoadedExecutable_IsDeleted_Args& a, const Fits&) {
    a.is_deleted = need(a.executable, "executable").deleted;
  });
}

PJRT_Error* executableDestroy(PJRT_Executable_Destroy_Args* args) {
  return call("PJRT_Executable_Destroy", args, [](PJRT_Executable_Destroy_Args& a, const Fits&) {
    destroyed(a.executable, "executable");
  });
}

PJRT_Error* executableName(PJRT_Executable_Name_Args* args) {
  return call("PJRT_Executable_Name", args, [](PJRT_Executable_Name_Args& a, const Fits&) {
    setString(programOf(a.executable).kiln->info->program->entry().name(), a.executable_name,
              a.executable_name_size);
  });
}

PJRT_Error* executableNumReplicas(PJRT_Executable_NumReplicas_Args* args) {
  return call("PJRT_Executable_NumReplicas", args, [](PJRT_Executable_NumReplicas_Args& a, const Fits&) {
    a.num_replicas = static_cast<size_t>(programOf(a.executable).kiln->info->placement.replicas);
  });
}

PJRT_Error* executableNumPartitions(PJRT_Executable_NumPartitions_Args* args) {
  return call("PJRT_Executable_NumPartitions", args, [](PJRT_Executable_NumPartitions_Args& a, const Fits&) {
    a.num_partitions = static_cast<size_t>(programOf(a.executable).kiln->info->placement.partitions);
  });
}

PJRT_Error* executableNumOutputs(PJRT_Executable_NumOutputs_Args* args) {
  return call("PJRT_Executable_NumOutputs", args, [](PJRT_Executable_NumOutputs_Args& a, const Fits&) {
    a.num_outputs = programOf(a.executable).outputs.types.size();
  });
}

PJRT_Error* executableOutputElementTypes(PJRT_Executable_OutputElementTypes_Args* args) {
  return call("PJRT_Executable_OutputElementTypes", args,
              [](PJRT_Executable_OutputElementTypes_Args& a, const Fits&) {
                const CompiledProgramHandle& program = programOf(a.executable);
                a.output_types = const_cast<PJRT_Buffer_Type*>(program.outputs.types.data());
                a.num_output_types = program.outputs.types.size();
              });
}

PJRT_Error* executableOutputDimensions(PJRT_Executable_OutputDimensions_Args* args) {
  return call("PJRT_Executable_OutputDimensions", args, [](PJRT_Executable_OutputDimensions_Args& a, const Fits&) {
    const CompiledProgramHandle& program = programOf(a.executable);
    a.num_outputs = program.outputs.ranks.size();
    a.dims = program.outputs.dims.data();
    a.dim_sizes = program.outputs.ranks.data();
  });
}

PJRT_Error* executableOutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args* args) {
  return call("PJRT_Executable_OutputMemoryKinds", args, [](PJRT_Executable_OutputMemoryKinds_Args& a, const Fits&) {
    const CompiledProgramHandle& program = programOf(a.executable);
    a.num_outputs = program.outputMemoryKinds.size();
    a.memory_kinds = program.outputMemoryKinds.data();
    a.memory_kind_sizes = program.outputMemoryKindSizes.data();
  });
}

}  // namespace functions

void execute(PJRT_LoadedExecutable_Execute_Args& a, const Fits& fits, const ExecuteControl& control) {
  PJRT_LoadedExecutable& loaded = loadedOf(a.executable);
  const CompiledProgramHandle& program = *loaded.program;
  // Its devices, or the one execute_device names (a portable executable's).
  PJRT_Device* const* devices = loaded.devices.data();
  size_t numDevices = loaded.devices.size();
  PJRT_Device* chosen = nullptr;
  if (fits(a.execute_device) && a.execute_device) {
    if (!loaded.portable && !(numDevices == 1 && devices[0] == a.execute_device))
      invalid("execute_device names a device, but the executable was compiled for its device assignment "
              "(compile_portable_executable is false)");
    chosen = a.execute_device;
  } else if (loaded.portable) {
    chosen = loaded.client->handles.at(0);  // (a deserialized one may be: see deserialize)
  }
  if (chosen) {
    devices = &chosen;
    numDevices = 1;
  }
  if (a.num_devices != numDevices)
    invalid("num_devices is " + std::to_string(a.num_devices) + "; the executable runs on " +
            std::to_string(numDevices) + " device(s)");
  if (!a.output_lists) invalid("output_lists is null");
  // Under the mpi communicator this rank's one device runs the process of its rank.
  const ClientCore& client = *loaded.client->core;
  const Placement& where = program.kiln->info->placement;
  const size_t firstProcess = client.transport && where.processes() > 1 ? client.transport->rank() : 0;
  auto numArgs = [&](size_t d) { return control.numArgsPerDevice ? control.numArgsPerDevice[d] : a.num_args; };
  size_t mostArgs = 0;
  constexpr size_t kOnStack = 8;  // the few devices most executions run on
  DeviceCore* coresOnStack[kOnStack];
  std::vector<DeviceCore*> coresOnHeap;
  DeviceCore** cores = numDevices <= kOnStack ? coresOnStack : (coresOnHeap.resize(numDevices), coresOnHeap.data());
  for (size_t d = 0; d < numDevices; ++d) {
    if (numArgs(d) > 0 && !a.argument_lists) invalid("argument_lists is null");
    if (numArgs(d) > 0 && !a.argument_lists[d]) invalid("argument_lists[" + std::to_string(d) + "] is null");
    if (!a.output_lists[d] && !program.kiln->infoOf(firstProcess + d)->results.empty())
      invalid("output_lists[" + std::to_string(d) + "] is null");
    if (!devices[d]->core) invalid("device " + std::to_string(devices[d]->id) + " is not addressable");
    cores[d] = devices[d]->core;
    mostArgs = std::max(mostArgs, numArgs(d));
  }
  // The plugin reads the arguments and hands back the outputs and events through these,
  // so that no list is built for them.
  struct Context {
    PJRT_LoadedExecutable_Execute_Args* a;
    const ExecuteControl* control;
    PJRT_Device* const* devices;
  } context{&a, &control, devices};
  core::ExecuteRequest request;
  request.executable = program.kiln.get();
  request.numDevices = numDevices;
  request.devices = cores;
  request.context = &context;
  request.numArgs = [](const void* c, size_t d) {
    const Context& x = *static_cast<const Context*>(c);
    return x.control->numArgsPerDevice ? x.control->numArgsPerDevice[d] : x.a->num_args;
  };
  request.argument = [](const void* c, size_t d, size_t i) -> const std::shared_ptr<BufferState>* {
    const PJRT_Buffer* buffer = static_cast<const Context*>(c)->a->argument_lists[d][i];
    if (buffer && !isLive(buffer, HandleKind::Buffer))
      invalid("argument_lists[" + std::to_string(d) + "][" + std::to_string(i) +
              "] is not a live handle of this plugin (destroyed already, or not made by it)");
    return buffer ? &buffer->state : nullptr;
  };
  request.output = [](void* c, size_t d, size_t r, std::shared_ptr<BufferState> buffer) {
    const Context& x = *static_cast<const Context*>(c);
    x.a->output_lists[d][r] = handedOut(new PJRT_Buffer{std::move(buffer), x.devices[d]});
  };
  request.done = [](void* c, size_t d, EventRef event, std::shared_ptr<Cancellable> execution) {
    const Context& x = *static_cast<const Context*>(c);
    if (x.a->device_complete_events)
      x.a->device_complete_events[d] = handedOut(new PJRT_Event{std::move(event), std::move(execution)});
  };
  for (size_t i : donatedParameters(program.donors, a.options)) {
    if (i >= mostArgs) continue;  // (the argument count is checked with the rest)
    if (request.donated.empty()) request.donated.assign(mostArgs, false);
    request.donated[i] = true;
  }
  if (control.label) request.label = control.label;
  request.timeLimitNs = control.timeLimitNs;
  request.print = control.print;
  request.printUser = control.printUser;
  request.printRelease = control.printRelease;
  core::execute(request);
}

namespace functions {

// Runs the program once on each of its devices (argument_lists[d] on the device of
// process d), or on execute_device for a portable executable.
PJRT_Error* loadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args) {
  return call("PJRT_LoadedExecutable_Execute", args,
              [](PJRT_LoadedExecutable_Execute_Args& a, const Fits& fits) { execute(a, fits, {}); });
}

PJRT_Error* executableFingerprint(PJRT_Executable_Fingerprint_Args* args) {
  return call("PJRT_Executable_Fingerprint", args, [](PJRT_Executable_Fingerprint_Args& a, const Fits&) {
    setString(programOf(a.executable).fingerprint, a.executable_fingerprint, a.executable_fingerprint_size);
  });
}

PJRT_Error* executableGetCostAnalysis(PJRT_Executable_GetCostAnalysis_Args* args) {
  return call("PJRT_Executable_GetCostAnalysis", args, [](PJRT_Executable_GetCostAnalysis_Args& a, const Fits&) {
    const CompiledProgramHandle& program = programOf(a.executable);
    a.properties = program.costs.data();
    a.num_properties = program.costs.size();
  });
}

// Sizes on the device, from kiln's memory analysis; nothing on the host, and no size of
// generated code (kiln does not measure it).
PJRT_Error* executableGetCompiledMemoryStats(PJRT_Executable_GetCompiledMemoryStats_Args* args) {
  return call("PJRT_Executable_GetCompiledMemoryStats", args,
              [](PJRT_Executable_GetCompiledMemoryStats_Args& a, const Fits&) {
                const ProgramInfo& info = *programOf(a.executable).kiln->info;
                auto bytesOf = [](const std::vector<Type>& types) {
                  int64_t sum = 0;
                  for (const Type& t : types) sum += t.isTensor() ? t.byteSize() : 0;
                  return sum;
                };
                a.argument_size_in_bytes = bytesOf(info.params);
                a.output_size_in_bytes = bytesOf(info.results);
                a.temp_size_in_bytes = info.tempBytes;
                a.peak_memory_in_bytes = info.peakLiveBytes;
                a.total_size_in_bytes = a.argument_size_in_bytes + a.output_size_in_bytes + a.temp_size_in_bytes;
              });
}

// The program after kiln's optimizations, as MLIR text. Called first with a null code to
// learn its size.
PJRT_Error* executableOptimizedProgram(PJRT_Executable_OptimizedProgram_Args* args) {
  return call("PJRT_Executable_OptimizedProgram", args, [](PJRT_Executable_OptimizedProgram_Args& a, const Fits&) {
    auto& program = const_cast<CompiledProgramHandle&>(programOf(a.executable));
    PJRT_Program& out = need(a.program, "program");
    if (out.struct_size < PJRT_Program_STRUCT_SIZE) invalid("program's struct_size is " + std::to_string(out.struct_size));
    std::call_once(program.printed,
                   [&] { program.optimizedText = stablehlo::printModule(program.kiln->info->program->module()); });
    static const char kFormat[] = "mlir";
    out.format = kFormat;
    out.format_size = sizeof kFormat - 1;
    if (!out.code) {
      out.code_size = program.optimizedText.size();
      return;
    }
    if (out.code_size < program.optimizedText.size())
      invalid("code_size is " + std::to_string(out.code_size) + "; the program needs " +
              std::to_string(program.optimizedText.size()) + " bytes");
    std::memcpy(out.code, program.optimizedText.data(), program.optimizedText.size());
    out.code_size = program.optimizedText.size();
  });
}

PJRT_Error* executableSerialize(PJRT_Executable_Serialize_Args* args) {
  return call("PJRT_Executable_Serialize", args, [](PJRT_Executable_Serialize_Args& a, const Fits& fits) {
    fits.requireOut(a.serialized_executable_deleter, "serialized_executable_deleter");
    const ProgramInfo& info = *programOf(a.executable).kiln->info;
    auto owned = std::make_unique<OwnedBytes>();
    owned->bytes = serializeExecutable(info.placement, info.program->serialize());
    a.serialized_bytes = owned->bytes.data();
    a.serialized_bytes_size = owned->bytes.size();
    a.serialized_executable = reinterpret_cast<PJRT_SerializedExecutable*>(owned.release());
    a.serialized_executable_deleter = [](PJRT_SerializedExecutable* bytes) {
      delete reinterpret_cast<OwnedBytes*>(bytes);
    };
  });
}

// What a serialized executable does not keep: whether it was portable (see
// deserialize). Overridden compile options that place it otherwise are refused.
PJRT_Error* executableDeserializeAndLoad(PJRT_Executable_DeserializeAndLoad_Args* args) {
  return call("PJRT_Executable_DeserializeAndLoad", args,
              [](PJRT_Executable_DeserializeAndLoad_Args& a, const Fits& fits) {
                fits.requireOut(a.loaded_executable, "loaded_executable");
                PJRT_Client& client = need(a.client, "client");
                // A client may send the options it compiled with again: accepted when they
                // place the program as its bytes do (checked once it is loaded).
                std::optional<proto::CompileOptions> overridden;
                if (fits(a.overridden_serialized_compile_options_size) && a.overridden_serialized_compile_options_size > 0) {
                  if (!a.overridden_serialized_compile_options) invalid("overridden_serialized_compile_options is null");
                  overridden = proto::readCompileOptions(std::string_view(a.overridden_serialized_compile_options,
                                                                   a.overridden_serialized_compile_options_size));
                }
                PJRT_LoadedExecutable* loaded =
                    deserialize(client, a.serialized_executable, a.serialized_executable_size, nullptr, nullptr, 0);
                if (overridden) {
                  const Placement& where = loaded->program->kiln->info->placement;
                  if (overridden->replicas != where.replicas || overridden->partitions != where.partitions ||
                      (!overridden->devices.empty() && overridden->devices != where.devices)) {
                    destroyed(loaded, "loaded_executable");
                    throw ApiFailure(FailureCode::Unimplemented,
                                     "unsupported: overridden compile options that place the program otherwise than "
                                     "when it was compiled (compile it again)");
                  }
                }
                a.loaded_executable = loaded;
              });
}

PJRT_Error* loadedExecutableGetDeviceAssignment(PJRT_LoadedExecutable_GetDeviceAssignment_Args* args) {
  return call("PJRT_LoadedExecutable_GetDeviceAssignment", args,
              [](PJRT_LoadedExecutable_GetDeviceAssignment_Args& a, const Fits& fits) {
                fits.requireOut(a.serialized_device_assignment_deleter, "serialized_device_assignment_deleter");
                const PJRT_LoadedExecutable& loaded = loadedOf(a.executable);
                if (loaded.portable)
                  throw ApiFailure(FailureCode::FailedPrecondition,
                                   "a portable executable has no device assignment (it runs where execute says)");
                const Placement& where = loaded.program->kiln->info->placement;
                std::vector<int32_t> ids;
                for (const PJRT_Device* device : loaded.devices) ids.push_back(device->id);
                auto owned = std::make_unique<OwnedBytes>();
                owned->bytes = proto::writeDeviceAssignment(where.replicas, where.partitions, ids);
                a.serialized_bytes = owned->bytes.data();
                a.serialized_bytes_size = owned->bytes.size();
                a.serialized_device_assignment = reinterpret_cast<PJRT_DeviceAssignmentSerialized*>(owned.release());
                a.serialized_device_assignment_deleter = [](PJRT_DeviceAssignmentSerialized* bytes) {
                  delete reinterpret_cast<OwnedBytes*>(bytes);
                };
              });
}

}  // namespace functions
}  // namespace kiln::runtime::pjrt
