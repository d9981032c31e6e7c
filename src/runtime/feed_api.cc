// A device's infeed and outfeed through the C API (capability "feeds"): the checks on
// what the host passes; the queues are DeviceFeedQueues.
#include "runtime/api_call.h"
#include "runtime/api_functions.h"
#include "runtime/host_memory.h"

namespace kiln::runtime::api {

KilnError* deviceInfeed(KilnDeviceInfeedArgs* args) {
  return apiCall("device_infeed", args, [](KilnDeviceInfeedArgs& a, const Fits&) {
    KilnDevice& device = need(a.device, "device");
    const Type type = tensorTypeFromArgs(rawEnum(a.dtype), a.dims, a.num_dims);
    requireData(type, a.data, "data");
    device.feeds->infeed(valueFromHost(type, a.data));
  });
}

KilnError* deviceOutfeed(KilnDeviceOutfeedArgs* args) {
  return apiCall("device_outfeed", args, [](KilnDeviceOutfeedArgs& a, const Fits& fits) {
    fits.requireOut(a.event, "event");
    KilnDevice& device = need(a.device, "device");
    Type type = tensorTypeFromArgs(rawEnum(a.dtype), a.dims, a.num_dims);
    const auto bytes = static_cast<size_t>(type.byteSize());
    if (a.dst_size != bytes)
      invalid("dst_size is " + std::to_string(a.dst_size) + ", a value of " + type.str() + " is " +
              std::to_string(bytes) + " bytes");
    requireData(type, a.dst, "dst");
    EventRef done = device.feeds->requestOutfeed(std::move(type), a.dst);
    a.event = std::make_unique<KilnEvent>(KilnEvent{std::move(done), {}}).release();
  });
}

}  // namespace kiln::runtime::api
