// The backend a plugin serves: set once, by its entry point (GetPjrtApi), before any of
// its functions can be called, and read by all of them.
#pragma once

#include "runtime/device_backend.h"

namespace kiln::runtime {

// Serves `backend` (which must live as long as the process; the first one passed is the
// one served).
void serveBackend(const DeviceBackend& backend);

}  // namespace kiln::runtime
