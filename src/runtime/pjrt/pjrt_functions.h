// The PJRT functions kiln's plugins implement, by object kind (errors.cc,
// client_functions.cc, event_functions.cc, buffer_functions.cc,
// executable_functions.cc); api_table.cc puts them in the table, and
// every entry without one here answers UNIMPLEMENTED, naming itself.
#pragma once

#include "kiln/pjrt/c_api.h"
#include "runtime/device_backend.h"

namespace kiln::runtime::pjrt::functions {

// The backend the table serves (set once by pjrtApi).
const DeviceBackend& backend();

void errorDestroy(PJRT_Error_Destroy_Args* args);
void errorMessage(PJRT_Error_Message_Args* args);
PJRT_Error* errorGetCode(PJRT_Error_GetCode_Args* args);
PJRT_Error* errorForEachPayload(PJRT_Error_ForEachPayload_Args* args);

PJRT_Error* eventDestroy(PJRT_Event_Destroy_Args* args);
PJRT_Error* eventIsReady(PJRT_Event_IsReady_Args* args);
PJRT_Error* eventError(PJRT_Event_Error_Args* args);
PJRT_Error* eventAwait(PJRT_Event_Await_Args* args);
PJRT_Error* eventOnReady(PJRT_Event_OnReady_Args* args);

PJRT_Error* pluginInitialize(PJRT_Plugin_Initialize_Args* args);
PJRT_Error* pluginAttributes(PJRT_Plugin_Attributes_Args* args);


PJRT_Error* clientCreate(PJRT_Client_Create_Args* args);
PJRT_Error* clientDestroy(PJRT_Client_Destroy_Args* args);
PJRT_Error* clientPlatformName(PJRT_Client_PlatformName_Args* args);
PJRT_Error* clientProcessIndex(PJRT_Client_ProcessIndex_Args* args);
PJRT_Error* clientPlatformVersion(PJRT_Client_PlatformVersion_Args* args);
PJRT_Error* clientDevices(PJRT_Client_Devices_Args* args);
PJRT_Error* clientAddressableDevices(PJRT_Client_AddressableDevices_Args* args);
PJRT_Error* clientLookupDevice(PJRT_Client_LookupDevice_Args* args);
PJRT_Error* clientLookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args* args);
PJRT_Error* clientAddressableMemories(PJRT_Client_AddressableMemories_Args* args);

PJRT_Error* deviceDescriptionId(PJRT_DeviceDescription_Id_Args* args);
PJRT_Error* deviceDescriptionProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args* args);
PJRT_Error* deviceDescriptionAttributes(PJRT_DeviceDescription_Attributes_Args* args);
PJRT_Error* deviceDescriptionKind(PJRT_DeviceDescription_Kind_Args* args);
PJRT_Error* deviceDescriptionDebugString(PJRT_DeviceDescription_DebugString_Args* args);
PJRT_Error* deviceDescriptionToString(PJRT_DeviceDescription_ToString_Args* args);

PJRT_Error* deviceGetDescription(PJRT_Device_GetDescription_Args* args);
PJRT_Error* deviceIsAddressable(PJRT_Device_IsAddressable_Args* args);
PJRT_Error* deviceLocalHardwareId(PJRT_Device_LocalHardwareId_Args* args);
PJRT_Error* deviceAddressableMemories(PJRT_Device_AddressableMemories_Args* args);
PJRT_Error* deviceDefaultMemory(PJRT_Device_DefaultMemory_Args* args);
PJRT_Error* deviceMemoryStats(PJRT_Device_MemoryStats_Args* args);
PJRT_Error* deviceGetAttributes(PJRT_Device_GetAttributes_Args* args);

PJRT_Error* memoryId(PJRT_Memory_Id_Args* args);
PJRT_Error* memoryKind(PJRT_Memory_Kind_Args* args);
PJRT_Error* memoryKindId(PJRT_Memory_Kind_Id_Args* args);
PJRT_Error* memoryDebugString(PJRT_Memory_DebugString_Args* args);
PJRT_Error* memoryToString(PJRT_Memory_ToString_Args* args);
PJRT_Error* memoryAddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args);

PJRT_Error* clientBufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args);
PJRT_Error* bufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args);
PJRT_Error* bufferDestroy(PJRT_Buffer_Destroy_Args* args);
PJRT_Error* bufferDelete(PJRT_Buffer_Delete_Args* args);
PJRT_Error* bufferIsDeleted(PJRT_Buffer_IsDeleted_Args* args);
PJRT_Error* bufferElementType(PJRT_Buffer_ElementType_Args* args);
PJRT_Error* bufferDimensions(PJRT_Buffer_Dimensions_Args* args);
PJRT_Error* bufferUnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args);
PJRT_Error* bufferDynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args* args);
PJRT_Error* bufferOnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args);
PJRT_Error* bufferUnsafePointer(PJRT_Buffer_UnsafePointer_Args* args);
PJRT_Error* bufferDevice(PJRT_Buffer_Device_Args* args);
PJRT_Error* bufferMemory(PJRT_Buffer_Memory_Args* args);
PJRT_Error* bufferIsOnCpu(PJRT_Buffer_IsOnCpu_Args* args);
PJRT_Error* bufferReadyEvent(PJRT_Buffer_ReadyEvent_Args* args);
PJRT_Error* bufferCopyToDevice(PJRT_Buffer_CopyToDevice_Args* args);
PJRT_Error* bufferCopyToMemory(PJRT_Buffer_CopyToMemory_Args* args);

PJRT_Error* clientCompile(PJRT_Client_Compile_Args* args);
PJRT_Error* loadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args);
PJRT_Error* loadedExecutableGetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args);
PJRT_Error* loadedExecutableAddressableDevices(PJRT_LoadedExecutable_AddressableDevices_Args* args);
PJRT_Error* loadedExecutableAddressableDeviceLogicalIds(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args* args);
PJRT_Error* loadedExecutableDelete(PJRT_LoadedExecutable_Delete_Args* args);
PJRT_Error* loadedExecutableIsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args);
PJRT_Error* loadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args);
PJRT_Error* executableDestroy(PJRT_Executable_Destroy_Args* args);
PJRT_Error* executableName(PJRT_Executable_Name_Args* args);
PJRT_Error* executableNumReplicas(PJRT_Executable_NumReplicas_Args* args);
PJRT_Error* executableNumPartitions(PJRT_Executable_NumPartitions_Args* args);
PJRT_Error* executableNumOutputs(PJRT_Executable_NumOutputs_Args* args);
PJRT_Error* executableOutputElementTypes(PJRT_Executable_OutputElementTypes_Args* args);
PJRT_Error* executableOutputDimensions(PJRT_Executable_OutputDimensions_Args* args);
PJRT_Error* executableOutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args* args);
PJRT_Error* executableFingerprint(PJRT_Executable_Fingerprint_Args* args);
PJRT_Error* executableGetCostAnalysis(PJRT_Executable_GetCostAnalysis_Args* args);
PJRT_Error* executableGetCompiledMemoryStats(PJRT_Executable_GetCompiledMemoryStats_Args* args);
PJRT_Error* executableOptimizedProgram(PJRT_Executable_OptimizedProgram_Args* args);
PJRT_Error* executableSerialize(PJRT_Executable_Serialize_Args* args);
PJRT_Error* executableDeserializeAndLoad(PJRT_Executable_DeserializeAndLoad_Args* args);
PJRT_Error* loadedExecutableGetDeviceAssignment(PJRT_LoadedExecutable_GetDeviceAssignment_Args* args);

}  // namespace kiln::runtime::pjrt::functions
