// Clients, their devices and the devices' memories.
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "runtime/api_call.h"
#include "runtime/api_functions.h"
#include "runtime/mpi_transport.h"

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

// What client_create's options ask for.
struct ClientSettings {
  bool mpi = false;     // the mpi communicator (else the in-process one)
  double timeout = 300;  // collective_timeout_s
  bool inlineExecution = true;
  bool infeedWaits = false;  // infeed_when_empty
};

ClientSettings clientSettings(const KilnClientCreateArgs& a) {
  if (a.num_options > 0 && !a.options) invalid("options is null");
  ClientSettings settings;
  for (size_t i = 0; i < a.num_options; ++i) {
    const KilnNamedOption& option = a.options[i];
    const std::string where = "options[" + std::to_string(i) + "]";
    if (!option.name || !option.value) invalid(where + " has a null name or value");
    const std::string name = option.name, value = option.value;
    if (name == "communicator") {
      if (value != "in_process" && value != "mpi")
        invalid(where + ": communicator is '" + value + "' (in_process or mpi)");
      settings.mpi = value == "mpi";
    } else if (name == "collective_timeout_s") {
      char* end = nullptr;
      errno = 0;
      settings.timeout = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(settings.timeout) || settings.timeout <= 0)
        invalid(where + ": collective_timeout_s is '" + value + "', not a positive number of seconds");
    } else if (name == "inline_execution") {
      if (value != "small" && value != "never")
        invalid(where + ": inline_execution is '" + value + "' (small or never)");
      settings.inlineExecution = value == "small";
    } else if (name == "infeed_when_empty") {
      if (value != "wait" && value != "fail") invalid(where + ": infeed_when_empty is '" + value + "' (wait or fail)");
      settings.infeedWaits = value == "wait";
    } else {
      invalid(where + ": unknown client option '" + name +
              "' (this plugin knows: communicator, collective_timeout_s, inline_execution, infeed_when_empty)");
    }
  }
  if (settings.mpi && a.num_devices > 1)
    invalid("num_devices is " + std::to_string(a.num_devices) +
            "; under the mpi communicator each process has one device (start more processes)");
  if (settings.mpi && !mpiAvailable())
    throw ApiFailure(KILN_ERROR_UNIMPLEMENTED, "unsupported: the mpi communicator (this build of the plugin has no MPI: "
                                               "install libopenmpi-dev with scripts/setup.sh and configure again)");
  return settings;
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
    const ClientSettings settings = clientSettings(a);
    std::shared_ptr<interp::ProcessTransport> transport;
    if (settings.mpi) transport = mpiTransport(std::chrono::duration<double>(settings.timeout));
    const int count = transport ? 1 : a.num_devices > 0 ? a.num_devices : backend().defaultDeviceCount();
    auto client = std::make_unique<KilnClient>();
    client->backend = &backend();
    client->memoryLimit = a.memory_limit_bytes;
    client->transport = std::move(transport);
    client->inlineExecution = settings.inlineExecution;
    for (int i = 0; i < count; ++i) {
      auto device = std::make_unique<KilnDevice>();
      device->id = client->transport ? static_cast<int>(client->transport->rank()) : i;
      device->kind = backend().name();
      device->description = backend().describeDevice(i);
      device->deviceMemory = std::make_shared<DeviceMemory>(a.memory_limit_bytes);
      device->queue = std::make_shared<DeviceQueue>();
      device->feeds = std::make_shared<DeviceFeedQueues>(settings.infeedWaits);
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
    // Work already queued finishes (its events become ready; a program waiting for
    // infeed fails), its outfeed values still serving requests; later work is refused.
    for (auto& device : client->devices) device->feeds->stopInfeedWaits();
    for (auto& device : client->devices) device->queue->stop();
    for (auto& device : client->devices) device->feeds->closeOutfeed();
  });
}

KilnError* deviceInfo(KilnDeviceInfoArgs* args) {
  return apiCall("device_info", args, [](KilnDeviceInfoArgs& a, const Fits&) {
    KilnDevice& device = need(a.device, "device");
    a.global_id = device.id;
    a.process_index = device.client->transport ? static_cast<int32_t>(device.client->transport->rank()) : 0;
    a.kind = device.kind.c_str();
    a.description = device.description.c_str();
    a.memory_size_bytes = memorySize(device);
    a.memory = &device.memory;
  });
}

}  // namespace kiln::runtime::api
