// PJRT's compile, executables and executions, over the plugin's: programs arrive as MLIR
// text with a serialized xla.CompileOptionsProto (compile_options.h), and run on the
// devices the options assign, one process per device.
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/api_functions.h"
#include "runtime/pjrt/buffer_types.h"
#include "runtime/pjrt/compile_options.h"
#include "runtime/pjrt/pjrt_call.h"
#include "runtime/pjrt/pjrt_functions.h"
#include "runtime/pjrt/pjrt_objects.h"

namespace kiln::runtime::pjrt {

CompiledProgramHandle::~CompiledProgramHandle() {
  KilnExecutableDestroyArgs destroy{sizeof destroy, kiln};
  std::unique_ptr<KilnError>(api::executableDestroy(&destroy));
}

namespace {

PJRT_Device* deviceWithId(const PJRT_Client& client, int32_t id) {
  for (PJRT_Device* device : client.handles)
    if (device->core->id == id) return device;
  invalid("the device assignment names device " + std::to_string(id) + ", which the client does not have (" +
          std::to_string(client.handles.size()) + " devices)");
}

std::shared_ptr<CompiledProgramHandle> handleOf(KilnExecutable* kiln) {
  auto handle = std::make_shared<CompiledProgramHandle>();
  handle->kiln = kiln;
  for (const Type& type : kiln->info->results) {
    handle->outputTypes.push_back(type.isToken()    ? PJRT_Buffer_Type_TOKEN
                                  : type.isTensor() ? bufferTypeOf(type.dtype())
                                                    : PJRT_Buffer_Type_INVALID);
    const Shape& shape = type.isTensor() ? type.shape() : Shape{};
    handle->outputDims.insert(handle->outputDims.end(), shape.begin(), shape.end());
    handle->outputRanks.push_back(shape.size());
    static const char kDevice[] = "device";
    handle->outputMemoryKinds.push_back(kDevice);
    handle->outputMemoryKindSizes.push_back(sizeof kDevice - 1);
  }
  return handle;
}

const CompiledProgramHandle& programOf(PJRT_Executable* executable) {
  return *need(executable, "executable").program;
}

PJRT_LoadedExecutable& loadedOf(PJRT_LoadedExecutable* executable) {
  PJRT_LoadedExecutable& loaded = need(executable, "executable");
  if (loaded.deleted) throw ApiFailure(KILN_ERROR_FAILED_PRECONDITION, "the executable was deleted");
  return loaded;
}

constexpr std::string_view kBytecodeMagic("ML\xefR", 4);

}  // namespace

namespace functions {

PJRT_Error* clientCompile(PJRT_Client_Compile_Args* args) {
  return call("PJRT_Client_Compile", args, [](PJRT_Client_Compile_Args& a, const Fits& fits) {
    fits.requireOut(a.executable, "executable");
    PJRT_Client& client = need(a.client, "client");
    const PJRT_Program& program = need(a.program, "program");
    const std::string_view format(program.format ? program.format : "", program.format ? program.format_size : 0);
    if (format != "mlir")
      throw ApiFailure(KILN_ERROR_UNIMPLEMENTED, "unsupported: program format '" + std::string(format) +
                                                     "' (kiln compiles StableHLO as format \"mlir\")");
    if (program.code_size > 0 && !program.code) invalid("program code is null");
    const std::string_view code(program.code, program.code_size);
    if (code.substr(0, kBytecodeMagic.size()) == kBytecodeMagic)
      throw ApiFailure(KILN_ERROR_UNIMPLEMENTED, "unsupported: MLIR bytecode (kiln reads programs as MLIR text)");
    if (a.compile_options_size > 0 && !a.compile_options) invalid("compile_options is null");
    const CompileOptions options =
        readCompileOptions(std::string_view(a.compile_options ? a.compile_options : "", a.compile_options_size));

    std::vector<KilnNamedOption> named;
    for (const auto& [name, value] : options.overrides) named.push_back({name.c_str(), value.c_str()});
    KilnCompileArgs compile{};
    compile.struct_size = sizeof compile;
    compile.client = client.core;
    compile.code = code.data();
    compile.code_size = code.size();
    compile.num_replicas = options.replicas;
    compile.num_partitions = options.partitions;
    compile.device_assignment = options.devices.empty() || options.portable ? nullptr : options.devices.data();
    compile.options = named.data();
    compile.num_options = named.size();
    check(api::compile(&compile));
    auto loaded = std::make_unique<PJRT_LoadedExecutable>();
    loaded->program = handleOf(compile.executable);
    loaded->client = &client;
    loaded->portable = options.portable;
    const size_t processes = static_cast<size_t>(options.replicas) * static_cast<size_t>(options.partitions);
    if (!options.portable)
      for (size_t i = 0; i < processes; ++i)
        loaded->devices.push_back(options.devices.empty() ? client.handles.at(i)
                                                          : deviceWithId(client, options.devices[i]));
    a.executable = loaded.release();
  });
}

PJRT_Error* loadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  return call("PJRT_LoadedExecutable_Destroy", args, [](PJRT_LoadedExecutable_Destroy_Args& a, const Fits&) {
    std::unique_ptr<PJRT_LoadedExecutable> owned(a.executable);  // null: nothing to do
  });
}

PJRT_Error* loadedExecutableGetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args) {
  return call("PJRT_LoadedExecutable_GetExecutable", args,
              [](PJRT_LoadedExecutable_GetExecutable_Args& a, const Fits& fits) {
                fits.requireOut(a.executable, "executable");
                a.executable = new PJRT_Executable{need(a.loaded_executable, "loaded_executable").program};
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
    std::unique_ptr<PJRT_Executable> owned(a.executable);
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
    a.num_outputs = programOf(a.executable).outputTypes.size();
  });
}

PJRT_Error* executableOutputElementTypes(PJRT_Executable_OutputElementTypes_Args* args) {
  return call("PJRT_Executable_OutputElementTypes", args,
              [](PJRT_Executable_OutputElementTypes_Args& a, const Fits&) {
                const CompiledProgramHandle& program = programOf(a.executable);
                a.output_types = const_cast<PJRT_Buffer_Type*>(program.outputTypes.data());
                a.num_output_types = program.outputTypes.size();
              });
}

PJRT_Error* executableOutputDimensions(PJRT_Executable_OutputDimensions_Args* args) {
  return call("PJRT_Executable_OutputDimensions", args, [](PJRT_Executable_OutputDimensions_Args& a, const Fits&) {
    const CompiledProgramHandle& program = programOf(a.executable);
    a.num_outputs = program.outputRanks.size();
    a.dims = program.outputDims.data();
    a.dim_sizes = program.outputRanks.data();
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

// Runs the program once on each of its devices (argument_lists[d] on the device of
// process d), or on execute_device for a portable executable.
PJRT_Error* loadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args) {
  return call("PJRT_LoadedExecutable_Execute", args, [](PJRT_LoadedExecutable_Execute_Args& a, const Fits& fits) {
    PJRT_LoadedExecutable& loaded = loadedOf(a.executable);
    const CompiledProgramHandle& program = *loaded.program;
    std::vector<PJRT_Device*> devices = loaded.devices;
    if (fits(a.execute_device) && a.execute_device) {
      if (!loaded.portable && !(devices.size() == 1 && devices[0] == a.execute_device))
        invalid("execute_device names a device, but the executable was compiled for its device assignment "
                "(compile_portable_executable is false)");
      devices = {a.execute_device};
    } else if (loaded.portable) {
      invalid("a portable executable runs on the device execute_device names; it is null");
    }
    if (a.num_devices != devices.size())
      invalid("num_devices is " + std::to_string(a.num_devices) + "; the executable runs on " +
              std::to_string(devices.size()) + " device(s)");
    if (!a.output_lists) invalid("output_lists is null");
    if (a.num_args > 0 && !a.argument_lists) invalid("argument_lists is null");
    std::vector<std::vector<KilnBuffer*>> arguments(a.num_devices);
    std::vector<KilnBuffer* const*> argumentLists;
    std::vector<KilnDevice*> kilnDevices;
    for (size_t d = 0; d < a.num_devices; ++d) {
      kilnDevices.push_back(devices[d]->core);
      for (size_t i = 0; i < a.num_args; ++i) {
        PJRT_Buffer* buffer = a.argument_lists[d][i];
        if (!buffer) invalid("argument_lists[" + std::to_string(d) + "][" + std::to_string(i) + "] is null");
        arguments[d].push_back(buffer->core);
      }
      argumentLists.push_back(arguments[d].data());
    }
    const size_t outputs = program.outputTypes.size();
    std::vector<std::vector<KilnBuffer*>> results(a.num_devices, std::vector<KilnBuffer*>(outputs));
    std::vector<KilnBuffer**> resultLists;
    for (auto& list : results) resultLists.push_back(list.data());
    std::vector<KilnEvent*> complete(a.num_devices);
    KilnExecuteArgs execute{};
    execute.struct_size = sizeof execute;
    execute.executable = program.kiln;
    execute.num_devices = a.num_devices;
    execute.devices = kilnDevices.data();
    execute.argument_lists = argumentLists.data();
    execute.num_args = a.num_args;
    execute.output_lists = resultLists.data();
    execute.complete_events = complete.data();
    check(api::execute(&execute));
    for (size_t d = 0; d < a.num_devices; ++d) {
      for (size_t r = 0; r < outputs; ++r)
        a.output_lists[d][r] = new PJRT_Buffer{results[d][r], devices[d]};
      std::unique_ptr<KilnEvent> event(complete[d]);
      if (a.device_complete_events) a.device_complete_events[d] = new PJRT_Event{event->event};
    }
  });
}

}  // namespace functions
}  // namespace kiln::runtime::pjrt
