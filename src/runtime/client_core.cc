// Clients and their devices: what a client is created with, and how it goes.
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "runtime/api_call.h"
#include "runtime/mpi_transport.h"
#include "runtime/plugin_core.h"

namespace kiln::runtime::core {

namespace {

// No program can address more devices than this on one host; a larger count is a typo.
constexpr int kMaxDevices = 1024;

int64_t hostMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<int64_t>(pages) * size : 0;
}

}  // namespace

int64_t memorySize(const DeviceCore& device) {
  return device.client->memoryLimit > 0 ? device.client->memoryLimit : hostMemoryBytes();
}

void setClientOption(ClientSettings& settings, const std::string& name, const std::string& value,
                     const std::string& where) {
  if (name == "communicator") {
    if (value != "in_process" && value != "mpi") invalid(where + ": communicator is '" + value + "' (in_process or mpi)");
    settings.mpi = value == "mpi";
  } else if (name == "collective_timeout_s") {
    char* end = nullptr;
    errno = 0;
    const double timeout = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(timeout) || timeout <= 0)
      invalid(where + ": collective_timeout_s is '" + value + "', not a positive number of seconds");
    settings.collectiveTimeout = timeout;
  } else if (name == "inline_execution") {
    if (value != "small" && value != "never") invalid(where + ": inline_execution is '" + value + "' (small or never)");
    settings.inlineExecution = value == "small";
  } else if (name == "infeed_when_empty") {
    if (value != "wait" && value != "fail") invalid(where + ": infeed_when_empty is '" + value + "' (wait or fail)");
    settings.infeedWaits = value == "wait";
  } else if (name == "platform_name") {  // a framework's name for the plugin ("kiln" for JAX)
    if (value.empty()) invalid(where + ": platform_name is empty");
    settings.platformName = value;
  } else {
    invalid(where + ": unknown client option '" + name +
            "' (this plugin's options: num_devices, memory_limit_bytes (int64), communicator, collective_timeout_s, "
            "inline_execution, infeed_when_empty, platform_name)");
  }
}

std::unique_ptr<ClientCore> createClient(const ClientSettings& settings) {
  if (settings.numDevices < 0 || settings.numDevices > kMaxDevices)
    invalid("num_devices is " + std::to_string(settings.numDevices) + " (0 for the default, or 1.." +
            std::to_string(kMaxDevices) + ")");
  if (settings.memoryLimit < 0)
    invalid("memory_limit_bytes is " + std::to_string(settings.memoryLimit) + " (0 for none)");
  if (settings.mpi && settings.numDevices > 1)
    invalid("num_devices is " + std::to_string(settings.numDevices) +
            "; under the mpi communicator each process has one device (start more processes)");
  if (settings.mpi && !mpiAvailable())
    throw ApiFailure(FailureCode::Unimplemented, "unsupported: the mpi communicator (this build of the plugin has no MPI: "
                                                 "install libopenmpi-dev with scripts/setup.sh and configure again)");
  std::shared_ptr<interp::ProcessTransport> transport;
  if (settings.mpi) transport = mpiTransport(std::chrono::duration<double>(settings.collectiveTimeout));
  const int count = transport ? 1 : settings.numDevices > 0 ? settings.numDevices : backend().defaultDeviceCount();
  auto client = std::make_unique<ClientCore>();
  client->backend = &backend();
  client->memoryLimit = settings.memoryLimit;
  client->transport = std::move(transport);
  client->inlineExecution = settings.inlineExecution;
  for (int i = 0; i < count; ++i) {
    auto device = std::make_unique<DeviceCore>();
    device->id = client->transport ? static_cast<int>(client->transport->rank()) : i;
    device->kind = backend().name();
    device->description = backend().describeDevice(i);
    device->deviceMemory = std::make_shared<DeviceMemory>(settings.memoryLimit);
    device->queue = std::make_shared<DeviceQueue>();
    device->feeds = std::make_shared<DeviceFeedQueues>(settings.infeedWaits);
    device->client = client.get();
    client->handles.push_back(device.get());
    client->devices.push_back(std::move(device));
  }
  return client;
}

void destroyClient(std::unique_ptr<ClientCore> client) {
  for (auto& device : client->devices) device->feeds->stopInfeedWaits();
  for (auto& device : client->devices) device->queue->stop();
  for (auto& device : client->devices) device->feeds->closeOutfeed();
}

}  // namespace kiln::runtime::core
