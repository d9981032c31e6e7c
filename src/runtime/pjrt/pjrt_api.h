// PJRT's function table over a DeviceBackend: what a plugin's GetPjrtApi returns.
#pragma once

#include "kiln/pjrt/c_api.h"
#include "runtime/device_backend.h"

namespace kiln::runtime {

// The table, in static storage, serving `backend` (which must live as long as the
// process; the first backend passed is the one served).
const PJRT_Api* pjrtApi(const DeviceBackend& backend);

}  // namespace kiln::runtime
