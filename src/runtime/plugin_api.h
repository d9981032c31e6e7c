// The C API's function table over a DeviceBackend: the one implementation of clients,
// devices, buffers, executions and events that every plugin shares. A plugin's entry
// point returns pluginApi(its backend).
#pragma once

#include "kiln/plugin.h"
#include "runtime/device_backend.h"

namespace kiln::runtime {

// The table, in static storage, serving `backend` (which must live as long as the
// process; the first backend passed is the one served).
const KilnPluginApi* pluginApi(const DeviceBackend& backend);

}  // namespace kiln::runtime
