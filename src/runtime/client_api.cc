// Clients, their devices and the devices' memories.
#include <unistd.h>

#include "runtime/api_call.h"
#include "runtime/api_functions.h"

namespace kiln::runtime::api {

namespace {

// No program can address more devices than this on one host; a larger count is a typo.
constexpr int kMaxDevices = 1024;

int64_t hostMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<int64_t>(pages) * size : 0;
}

// What a device's memory holds at most: the client's limit, or the host's memory.
int64_t memorySize(const KilnDevice& device) {
  return device.client->memoryLimit > 0 ? device.client->memoryLimit : hostMemoryBytes();
}

}  // namespace

KilnError* clientCreate(KilnClientCreateArgs* args) {
  return apiCall("client_create", args, [](KilnClientCreateArgs& a, const Fits& fits) {
    fits.requireOut(a.client, "client");
    if (a.num_devices < 0 || a.num_devices > kMaxDevices)
      invalid("num_devices is " + std::to_string(a.num_devices) + " (0 for the default, or 1.." +
              std::to_string(kMaxDevices) + ")");
    if (a.memory_limit_bytes < 0)
      invalid("memory_limit_bytes is " + std::to_string(a.memory_limit_bytes) + " (0 for none)");
    const int count = a.num_devices > 0 ? a.num_devices : backend().defaultDeviceCount();
    auto client = std::make_unique<KilnClient>();
    client->backend = &backend();
    client->memoryLimit = a.memory_limit_bytes;
    for (int i = 0; i < count; ++i) {
      auto device = std::make_unique<KilnDevice>();
      device->id = i;
      device->kind = backend().name();
      device->description = backend().describeDevice(i);
      device->deviceMemory = std::make_shared<DeviceMemory>(a.memory_limit_bytes);
      device->queue = std::make_shared<DeviceQueue>();
      device->client = client.get();
      client->handles.push_back(device.get());
      client->devices.push_back(std::move(device));
    }
    a.client = client.release();
  });
}

KilnError* clientDestroy(KilnClientDestroyArgs* args) {
  return apiCall("client_destroy", args, [](KilnClientDestroyArgs& a, const Fits&) {
    std::unique_ptr<KilnClient> client(&need(a.client, "client"));
    // Work already queued finishes (its events become ready); later work is refused.
    for (auto& device : client->devices) device->queue->stop();
  });
}

KilnError* clientDevices(KilnClientDevicesArgs* args) {
  return apiCall("client_devices", args, [](KilnClientDevicesArgs& a, const Fits&) {
    KilnClient& client = need(a.client, "client");
    a.devices = client.handles.data();
    a.num_devices = client.handles.size();
  });
}

KilnError* deviceInfo(KilnDeviceInfoArgs* args) {
  return apiCall("device_info", args, [](KilnDeviceInfoArgs& a, const Fits&) {
    KilnDevice& device = need(a.device, "device");
    a.global_id = device.id;
    a.process_index = 0;  // one process until the communicator spans several
    a.kind = device.kind.c_str();
    a.description = device.description.c_str();
    a.memory_size_bytes = memorySize(device);
    a.memory = &device.memory;
  });
}

KilnError* memoryInfo(KilnMemoryInfoArgs* args) {
  return apiCall("memory_info", args, [](KilnMemoryInfoArgs& a, const Fits&) {
    KilnMemory& memory = need(a.memory, "memory");
    a.kind = "host";
    a.size_bytes = memorySize(*memory.device);
    a.device = memory.device;
  });
}

KilnError* deviceMemoryStats(KilnDeviceMemoryStatsArgs* args) {
  return apiCall("device_memory_stats", args, [](KilnDeviceMemoryStatsArgs& a, const Fits&) {
    DeviceMemory::Stats stats = need(a.device, "device").deviceMemory->stats();
    a.bytes_in_use = stats.inUse;
    a.peak_bytes_in_use = stats.peak;
    a.num_buffers = stats.buffers;
    a.bytes_limit = stats.limit;
  });
}

}  // namespace kiln::runtime::api
