// The plugin's functions beneath PJRT's (src/runtime/pjrt/), by object kind
// (client_api.cc, buffer_api.cc, executable_api.cc, feed_api.cc): written for kiln's
// retired ABI, whose argument structs (kiln/plugin.h) they still take, and no longer
// exported or loaded; to be folded into the PJRT functions.
#pragma once

#include "kiln/plugin.h"
#include "runtime/device_backend.h"

namespace kiln::runtime::api {

// The backend the plugin serves (set once by serveBackend, served_backend.h).
const DeviceBackend& backend();

KilnError* clientCreate(KilnClientCreateArgs* args);
KilnError* clientDestroy(KilnClientDestroyArgs* args);
KilnError* deviceInfo(KilnDeviceInfoArgs* args);
KilnError* deviceInfeed(KilnDeviceInfeedArgs* args);
KilnError* deviceOutfeed(KilnDeviceOutfeedArgs* args);

KilnError* bufferFromHost(KilnBufferFromHostArgs* args);
KilnError* bufferToHost(KilnBufferToHostArgs* args);
KilnError* bufferDelete(KilnBufferDeleteArgs* args);
KilnError* bufferDestroy(KilnBufferDestroyArgs* args);
KilnError* bufferCopyToDevice(KilnBufferCopyToDeviceArgs* args);

KilnError* compile(KilnCompileArgs* args);
KilnError* executableDestroy(KilnExecutableDestroyArgs* args);
KilnError* executableDeserialize(KilnExecutableDeserializeArgs* args);
KilnError* execute(KilnExecuteArgs* args);
KilnError* executableWithEntry(KilnExecutableWithEntryArgs* args);
KilnError* executableStatistics(KilnExecutableStatisticsArgs* args);

}  // namespace kiln::runtime::api
