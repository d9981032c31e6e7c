#include "runtime/served_backend.h"

#include <atomic>

#include "runtime/plugin_core.h"

namespace kiln::runtime {

namespace {
std::atomic<const DeviceBackend*> served{nullptr};
}  // namespace

void serveBackend(const DeviceBackend& backend) {
  const DeviceBackend* none = nullptr;
  served.compare_exchange_strong(none, &backend, std::memory_order_acq_rel);
}

const DeviceBackend& core::backend() { return *served.load(std::memory_order_acquire); }

}  // namespace kiln::runtime
