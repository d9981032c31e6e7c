// What a plugin does beneath PJRT's functions (src/runtime/pjrt/), over the objects of
// plugin_objects.h, by kind: clients (client_core.cc), buffers (buffer_core.cc), feeds
// (feed_core.cc), executables and executions (executable_core.cc). Failures are thrown
// (ApiFailure with a code, or kiln::Error by its kind); PJRT's functions turn them into
// error objects.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device_backend.h"
#include "runtime/plugin_objects.h"

namespace kiln::runtime::core {

// The backend the plugin serves (served_backend.h).
const DeviceBackend& backend();

// ---- clients ----

// What a client is created with: the backend's device count or `numDevices`, a memory
// limit per device (0: none), and kiln's client options.
struct ClientSettings {
  int numDevices = 0;
  int64_t memoryLimit = 0;
  bool mpi = false;               // communicator=mpi (else in_process)
  double collectiveTimeout = 300;  // collective_timeout_s
  bool inlineExecution = true;    // inline_execution=small (else never)
  bool infeedWaits = false;       // infeed_when_empty=wait (else fail)
  std::string platformName;       // platform_name: what the client calls its platform (else the backend's name)
};

// Sets kiln's client option `name` (communicator, collective_timeout_s, inline_execution,
// infeed_when_empty, platform_name); `where` names the option in errors.
void setClientOption(ClientSettings& settings, const std::string& name, const std::string& value,
                     const std::string& where);

std::unique_ptr<ClientCore> createClient(const ClientSettings& settings);

// Work already queued finishes (its events become ready; a program waiting for infeed
// fails), its outfeed values still serving requests; later work is refused.
void destroyClient(std::unique_ptr<ClientCore> client);

// What a device's memory holds at most: the client's limit, or the host's memory.
int64_t memorySize(const DeviceCore& device);

// ---- buffers ----

// A token on `device` (ready at once).
std::shared_ptr<BufferState> token(DeviceCore& device);

// Copies `buffer`'s elements to `dst` (`size`, its bytes) once it is ready.
EventRef copyToHost(const std::shared_ptr<BufferState>& buffer, void* dst, size_t size);

// A copy of `buffer` on `dst`, a device of the same client, once it is ready.
std::shared_ptr<BufferState> copyToDevice(const std::shared_ptr<BufferState>& buffer, DeviceCore& dst);

// ---- feeds ----

// Queues a value of `type` from `data` (copied now) for the device's infeed ops.
void infeed(DeviceCore& device, const Type& type, const void* data);

// The next value the device's programs outfeed, of `type`, copied to `dst` (`size`, its
// bytes) once there.
EventRef outfeed(DeviceCore& device, Type type, void* dst, size_t size);

// ---- executables ----

struct CompileRequest {
  std::string_view code;  // StableHLO text
  std::string name = "<program>";
  int32_t replicas = 1, partitions = 1;
  // use_spmd_partitioning: a program with shardings over several partitions is the
  // global program, which kiln partitions into the one each device runs.
  bool spmd = false;
  std::vector<int32_t> deviceAssignment;  // the device of process (r, p) at r * partitions + p; empty: none
  std::string entry;                      // empty: @main or the only public function
  std::vector<std::string> processEntries;  // each process's function; empty: `entry` for all
  CompileSettings settings;                 // (its entry is set from the above)
};

// Sets kiln's named compile option `name` (fill_elided_seed, memory_limit, probe_dir,
// profile, kernel_cache_dir); `where` names the option in errors.
void setCompileOption(CompileSettings& settings, const std::string& name, const std::string& value,
                      const std::string& where);

std::unique_ptr<ExecutableCore> compile(ClientCore& client, const CompileRequest& request);

// An executable from serialize()'s bytes, with the text it was compiled from when known
// (its runtime errors then show their source line).
std::unique_ptr<ExecutableCore> deserialize(ClientCore& client, std::string_view bytes, const std::string& sourceName,
                                            std::optional<std::string_view> source);

// The same compiled module entered at another public function.
std::unique_ptr<ExecutableCore> withEntry(const ExecutableCore& executable, const std::string& entry);

// ---- executions ----

// One execution of an executable on each of `numDevices` devices (under the mpi
// communicator, this rank's process on its one device). The arguments are read and the
// outputs handed back through the caller's functions, so that no list is built for them.
struct ExecuteRequest {
  ExecutableCore* executable = nullptr;
  size_t numDevices = 0;
  DeviceCore* const* devices = nullptr;  // null: the executable's placement, or the client's first devices
  // Device d's argument count (differs between devices only when their processes run
  // different functions).
  size_t (*numArgs)(const void* context, size_t device) = nullptr;
  // Device d's argument i (null: none given).
  const std::shared_ptr<BufferState>* (*argument)(const void* context, size_t device, size_t index) = nullptr;
  // Receives device d's output r, and its completion with what cancels the execution.
  void (*output)(void* context, size_t device, size_t index, std::shared_ptr<BufferState> buffer) = nullptr;
  void (*done)(void* context, size_t device, EventRef event, std::shared_ptr<Cancellable> execution) = nullptr;
  void* context = nullptr;
  // Which arguments the execution takes over (index: true); empty: none.
  std::vector<bool> donated;
  std::string label;                   // prefixes a failure of its own run
  int64_t timeLimitNs = 0;             // 0: none
  void (*print)(void* user, const char* text, size_t size) = nullptr;  // null: stdout
  void* printUser = nullptr;
  void (*printRelease)(void* user) = nullptr;
};

// Starts the execution (checked whole before anything starts: a failed call leaves
// nothing running and donates nothing).
void execute(const ExecuteRequest& request);

}  // namespace kiln::runtime::core
