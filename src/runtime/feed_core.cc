// A device's infeed and outfeed: the checks on what the host passes; the queues are
// DeviceFeedQueues.
#include "runtime/api_call.h"
#include "runtime/host_memory.h"
#include "runtime/plugin_core.h"

namespace kiln::runtime::core {

void infeed(DeviceCore& device, const Type& type, const void* data) {
  requireData(type, data, "data");
  device.feeds->infeed(valueFromHost(type, data));
}

EventRef outfeed(DeviceCore& device, Type type, void* dst, size_t size) {
  const auto bytes = static_cast<size_t>(type.byteSize());
  if (size != bytes)
    invalid("dst_size is " + std::to_string(size) + ", a value of " + type.str() + " is " + std::to_string(bytes) +
            " bytes");
  requireData(type, dst, "dst");
  return device.feeds->requestOutfeed(std::move(type), dst);
}

}  // namespace kiln::runtime::core
