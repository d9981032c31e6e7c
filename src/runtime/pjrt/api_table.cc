// PJRT's function table, and the plugin's own functions. Every entry is filled: a client
// calls what the table holds without checking for NULL, so an entry kiln does not
// implement yet answers UNIMPLEMENTED with its own name.
#include "runtime/pjrt/pjrt_api.h"

#include <string>
#include <vector>

#include "runtime/plugin_core.h"
#include "runtime/mpi_transport.h"
#include "runtime/pjrt/kiln_extension.h"
#include "runtime/pjrt/shardings_extension.h"
#include "runtime/pjrt/pjrt_call.h"
#include "runtime/served_backend.h"
#include "runtime/pjrt/pjrt_functions.h"
#include "stablehlo/stablehlo_version.h"

#ifndef KILN_VERSION
#error "KILN_VERSION must be defined (the project version)"
#endif

namespace kiln::runtime {

namespace {

#define KILN_PJRT_NAME(name) constexpr char name##_name[] = #name;
KILN_PJRT_API_FUNCTIONS(KILN_PJRT_NAME)
#undef KILN_PJRT_NAME

template <class Entry, const char* Name>
struct Unimplemented;
// (Error_Destroy and Error_Message, which return no error, are implemented.)
template <class Args, const char* Name>
struct Unimplemented<void (*)(Args*), Name> {
  static void entry(Args*) {}
};
template <class Args, const char* Name>
struct Unimplemented<PJRT_Error* (*)(Args*), Name> {
  static PJRT_Error* entry(Args*) {
    return pjrt::pjrtError({FailureCode::Unimplemented, std::string("unsupported: ") + Name + " (not implemented by kiln's " +
                                                         pjrt::functions::backend().name() + " plugin)"});
  }
};

}  // namespace

namespace pjrt::functions {

const DeviceBackend& backend() { return core::backend(); }

PJRT_Error* pluginInitialize(PJRT_Plugin_Initialize_Args* args) {
  return call("PJRT_Plugin_Initialize", args, [](PJRT_Plugin_Initialize_Args&, const Fits&) {});
}

// Which plugin this is, and what it offers beyond the kiln extension: profiles (the
// compile option "profile") from a backend that records them, the client option
// communicator=mpi when it was built with MPI. And the StableHLO release whose portable
// artifacts it reads, which a framework serializes its programs for.
PJRT_Error* pluginAttributes(PJRT_Plugin_Attributes_Args* args) {
  return call("PJRT_Plugin_Attributes", args, [](PJRT_Plugin_Attributes_Args& a, const Fits&) {
    static const int64_t version[3] = {stablehlo::kStablehloVersion[0], stablehlo::kStablehloVersion[1],
                                       stablehlo::kStablehloVersion[2]};
    static const std::vector<PJRT_NamedValue> attributes = {stringValue("kiln_version", KILN_VERSION),
                                                           stringValue("kiln_backend", backend().name()),
                                                           boolValue("kiln_profiles", backend().profiles()),
                                                           boolValue("kiln_mpi", mpiAvailable()),
                                                           int64ListValue("stablehlo_current_version", version, 3)};
    a.attributes = attributes.data();
    a.num_attributes = attributes.size();
  });
}

}  // namespace pjrt::functions

const PJRT_Api* pjrtApi(const DeviceBackend& backend) {
  // The plugin's functions beneath these serve the same backend.
  serveBackend(backend);
  static const PJRT_Api table = [] {
    namespace f = pjrt::functions;
    PJRT_Api t{};
    t.struct_size = PJRT_Api_STRUCT_SIZE;
    t.pjrt_api_version = {PJRT_Api_Version_STRUCT_SIZE, nullptr, PJRT_API_MAJOR, PJRT_API_MINOR};
    // What PJRT's core table lacks: PJRT's shardings extension, then the kiln extension
    // (its header has the map).
    t.extension_start = const_cast<PJRT_Extension_Base*>(pjrt::shardingsExtension(pjrt::kilnExtension()));
#define KILN_PJRT_UNIMPLEMENTED(name) t.name = Unimplemented<decltype(t.name), name##_name>::entry;
    KILN_PJRT_API_FUNCTIONS(KILN_PJRT_UNIMPLEMENTED)
#undef KILN_PJRT_UNIMPLEMENTED
    t.PJRT_Error_Destroy = f::errorDestroy;
    t.PJRT_Error_Message = f::errorMessage;
    t.PJRT_Error_GetCode = f::errorGetCode;
    t.PJRT_Error_ForEachPayload = f::errorForEachPayload;
    t.PJRT_Plugin_Initialize = f::pluginInitialize;
    t.PJRT_Plugin_Attributes = f::pluginAttributes;
    t.PJRT_Event_Destroy = f::eventDestroy;
    t.PJRT_Event_IsReady = f::eventIsReady;
    t.PJRT_Event_Error = f::eventError;
    t.PJRT_Event_Await = f::eventAwait;
    t.PJRT_Event_OnReady = f::eventOnReady;
    t.PJRT_Client_Create = f::clientCreate;
    t.PJRT_Client_Destroy = f::clientDestroy;
    t.PJRT_Client_PlatformName = f::clientPlatformName;
    t.PJRT_Client_ProcessIndex = f::clientProcessIndex;
    t.PJRT_Client_PlatformVersion = f::clientPlatformVersion;
    t.PJRT_Client_Devices = f::clientDevices;
    t.PJRT_Client_AddressableDevices = f::clientAddressableDevices;
    t.PJRT_Client_LookupDevice = f::clientLookupDevice;
    t.PJRT_Client_LookupAddressableDevice = f::clientLookupAddressableDevice;
    t.PJRT_Client_AddressableMemories = f::clientAddressableMemories;
    t.PJRT_DeviceDescription_Id = f::deviceDescriptionId;
    t.PJRT_DeviceDescription_ProcessIndex = f::deviceDescriptionProcessIndex;
    t.PJRT_DeviceDescription_Attributes = f::deviceDescriptionAttributes;
    t.PJRT_DeviceDescription_Kind = f::deviceDescriptionKind;
    t.PJRT_DeviceDescription_DebugString = f::deviceDescriptionDebugString;
    t.PJRT_DeviceDescription_ToString = f::deviceDescriptionToString;
    t.PJRT_Device_GetDescription = f::deviceGetDescription;
    t.PJRT_Device_IsAddressable = f::deviceIsAddressable;
    t.PJRT_Device_LocalHardwareId = f::deviceLocalHardwareId;
    t.PJRT_Device_AddressableMemories = f::deviceAddressableMemories;
    t.PJRT_Device_DefaultMemory = f::deviceDefaultMemory;
    t.PJRT_Device_MemoryStats = f::deviceMemoryStats;
    t.PJRT_Device_GetAttributes = f::deviceGetAttributes;
    t.PJRT_Memory_Id = f::memoryId;
    t.PJRT_Memory_Kind = f::memoryKind;
    t.PJRT_Memory_Kind_Id = f::memoryKindId;
    t.PJRT_Memory_DebugString = f::memoryDebugString;
    t.PJRT_Memory_ToString = f::memoryToString;
    t.PJRT_Memory_AddressableByDevices = f::memoryAddressableByDevices;
    t.PJRT_Client_BufferFromHostBuffer = f::clientBufferFromHostBuffer;
    t.PJRT_Buffer_ToHostBuffer = f::bufferToHostBuffer;
    t.PJRT_Buffer_Destroy = f::bufferDestroy;
    t.PJRT_Buffer_Delete = f::bufferDelete;
    t.PJRT_Buffer_IsDeleted = f::bufferIsDeleted;
    t.PJRT_Buffer_ElementType = f::bufferElementType;
    t.PJRT_Buffer_Dimensions = f::bufferDimensions;
    t.PJRT_Buffer_UnpaddedDimensions = f::bufferUnpaddedDimensions;
    t.PJRT_Buffer_DynamicDimensionIndices = f::bufferDynamicDimensionIndices;
    t.PJRT_Buffer_OnDeviceSizeInBytes = f::bufferOnDeviceSizeInBytes;
    t.PJRT_Buffer_UnsafePointer = f::bufferUnsafePointer;
    t.PJRT_Buffer_Device = f::bufferDevice;
    t.PJRT_Buffer_Memory = f::bufferMemory;
    t.PJRT_Buffer_IsOnCpu = f::bufferIsOnCpu;
    t.PJRT_Buffer_ReadyEvent = f::bufferReadyEvent;
    t.PJRT_Buffer_CopyToDevice = f::bufferCopyToDevice;
    t.PJRT_Buffer_CopyToMemory = f::bufferCopyToMemory;
    t.PJRT_Client_Compile = f::clientCompile;
    t.PJRT_LoadedExecutable_Destroy = f::loadedExecutableDestroy;
    t.PJRT_LoadedExecutable_GetExecutable = f::loadedExecutableGetExecutable;
    t.PJRT_LoadedExecutable_AddressableDevices = f::loadedExecutableAddressableDevices;
    t.PJRT_LoadedExecutable_AddressableDeviceLogicalIds = f::loadedExecutableAddressableDeviceLogicalIds;
    t.PJRT_LoadedExecutable_Delete = f::loadedExecutableDelete;
    t.PJRT_LoadedExecutable_IsDeleted = f::loadedExecutableIsDeleted;
    t.PJRT_LoadedExecutable_Execute = f::loadedExecutableExecute;
    t.PJRT_Executable_Destroy = f::executableDestroy;
    t.PJRT_Executable_Name = f::executableName;
    t.PJRT_Executable_NumReplicas = f::executableNumReplicas;
    t.PJRT_Executable_NumPartitions = f::executableNumPartitions;
    t.PJRT_Executable_NumOutputs = f::executableNumOutputs;
    t.PJRT_Executable_OutputElementTypes = f::executableOutputElementTypes;
    t.PJRT_Executable_OutputDimensions = f::executableOutputDimensions;
    t.PJRT_Executable_OutputMemoryKinds = f::executableOutputMemoryKinds;
    t.PJRT_Executable_Fingerprint = f::executableFingerprint;
    t.PJRT_Executable_GetCostAnalysis = f::executableGetCostAnalysis;
    t.PJRT_Executable_GetCompiledMemoryStats = f::executableGetCompiledMemoryStats;
    t.PJRT_Executable_OptimizedProgram = f::executableOptimizedProgram;
    t.PJRT_Executable_Serialize = f::executableSerialize;
    t.PJRT_Executable_DeserializeAndLoad = f::executableDeserializeAndLoad;
    t.PJRT_LoadedExecutable_GetDeviceAssignment = f::loadedExecutableGetDeviceAssignment;
    return t;
  }();
  return &table;
}

}  // namespace kiln::runtime
