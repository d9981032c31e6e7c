// The C API's functions inside a plugin, by object kind (client_api.cc, buffer_api.cc,
// executable_api.cc, event_api.cc, feed_api.cc); plugin_api.cc puts them in the table.
#pragma once

#include "kiln/plugin.h"
#include "runtime/device_backend.h"

namespace kiln::runtime::api {

// The backend the table serves (set once by pluginApi).
const DeviceBackend& backend();

KilnError* errorDestroy(KilnErrorDestroyArgs* args);
KilnError* errorInfo(KilnErrorInfoArgs* args);
KilnError* pluginAttributes(KilnPluginAttributesArgs* args);

KilnError* clientCreate(KilnClientCreateArgs* args);
KilnError* clientDestroy(KilnClientDestroyArgs* args);
KilnError* clientDevices(KilnClientDevicesArgs* args);
KilnError* deviceInfo(KilnDeviceInfoArgs* args);
KilnError* memoryInfo(KilnMemoryInfoArgs* args);
KilnError* deviceMemoryStats(KilnDeviceMemoryStatsArgs* args);
KilnError* deviceInfeed(KilnDeviceInfeedArgs* args);
KilnError* deviceOutfeed(KilnDeviceOutfeedArgs* args);

KilnError* bufferFromHost(KilnBufferFromHostArgs* args);
KilnError* bufferToHost(KilnBufferToHostArgs* args);
KilnError* bufferInfo(KilnBufferInfoArgs* args);
KilnError* bufferReadyEvent(KilnBufferReadyEventArgs* args);
KilnError* bufferDelete(KilnBufferDeleteArgs* args);
KilnError* bufferDestroy(KilnBufferDestroyArgs* args);
KilnError* bufferCopyToDevice(KilnBufferCopyToDeviceArgs* args);

KilnError* compile(KilnCompileArgs* args);
KilnError* executableDestroy(KilnExecutableDestroyArgs* args);
KilnError* executableInfo(KilnExecutableInfoArgs* args);
KilnError* executableValueType(KilnExecutableValueTypeArgs* args);
KilnError* executableSerialize(KilnExecutableSerializeArgs* args);
KilnError* executableDeserialize(KilnExecutableDeserializeArgs* args);
KilnError* execute(KilnExecuteArgs* args);
KilnError* executionCancel(KilnExecutionCancelArgs* args);
KilnError* executableWithEntry(KilnExecutableWithEntryArgs* args);
KilnError* executableStatistics(KilnExecutableStatisticsArgs* args);
KilnError* executableText(KilnExecutableTextArgs* args);

KilnError* eventDestroy(KilnEventDestroyArgs* args);
KilnError* eventIsReady(KilnEventIsReadyArgs* args);
KilnError* eventAwait(KilnEventAwaitArgs* args);
KilnError* eventOnReady(KilnEventOnReadyArgs* args);

}  // namespace kiln::runtime::api
