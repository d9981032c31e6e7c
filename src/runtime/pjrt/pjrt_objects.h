// What PJRT's handles are inside kiln's plugins: each holds the plugin's object
// (plugin_objects.h) and what PJRT asks of it. Errors and memories are the two handles
// PJRT gives a layout: each starts with its table of functions.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "kiln/pjrt/c_api.h"
#include "runtime/completion.h"
#include "runtime/plugin_objects.h"

namespace kiln::runtime::pjrt {

struct ErrorObject : PJRT_Error {
  PJRT_Error_Code code;
  std::string message;
};

// A device's one memory. PJRT lets the framework attach its own data to a memory, by key.
struct MemoryObject : PJRT_Memory {
  PJRT_Device* device = nullptr;
  std::string description;  // what DebugString and ToString return
  std::mutex mutex;
  std::map<const void*, std::pair<void*, void (*)(void*)>> userData;
  ~MemoryObject();
};

}  // namespace kiln::runtime::pjrt

struct PJRT_DeviceDescription {
  PJRT_Device* device;
};

// A device of the client: one of its own (core), or under the mpi communicator another
// rank's, which it lists but cannot address (core null).
struct PJRT_Device {
  kiln::runtime::DeviceCore* core = nullptr;
  int32_t id = 0;
  int processIndex = 0;
  std::string kind;
  PJRT_DeviceDescription description{this};
  kiln::runtime::pjrt::MemoryObject memory;
  PJRT_Memory* memories[1] = {&memory};
  std::string debugString, displayString;  // what DebugString and ToString return
  std::vector<PJRT_NamedValue> attributes;
};

struct PJRT_Client {
  kiln::runtime::ClientCore* core = nullptr;  // owned: destroyed by PJRT_Client_Destroy (core::destroyClient)
  std::vector<std::unique_ptr<PJRT_Device>> devices;
  std::vector<PJRT_Device*> handles;     // this process's devices
  std::vector<PJRT_Device*> allHandles;  // every process's, by id
  std::vector<PJRT_Memory*> memories;
  std::string platformVersion;
  std::string platformName;  // the platform_name option, else the backend's name
};

// A buffer: the plugin's (shared with the work that fills or reads it) and its device.
struct PJRT_Buffer {
  std::shared_ptr<kiln::runtime::BufferState> state;
  PJRT_Device* device = nullptr;
};

struct PJRT_Event {
  kiln::runtime::EventRef event;
  // An execution's completion event: what the kiln extension's event_cancel stops.
  std::shared_ptr<kiln::runtime::Cancellable> execution;
};

namespace kiln::runtime::pjrt {

// Values' types as PJRT lists them: element types, ranks, and every value's dims in turn.
struct ValueTypes {
  std::vector<PJRT_Buffer_Type> types;
  std::vector<size_t> ranks;
  std::vector<int64_t> dims;
};

// A program kiln's compile made, shared by its loaded executable and the executables
// GetExecutable hands out (each destroyed on its own); what PJRT asks of it, computed once.
struct CompiledProgramHandle {
  std::unique_ptr<ExecutableCore> kiln;
  ValueTypes outputs;  // of process 0's function
  // The parameters the program marks donated (jax.buffer_donor, tf.aliasing_output);
  // empty for processes that run different functions, which donate nothing.
  std::vector<size_t> donors;
  std::vector<const char*> outputMemoryKinds;
  std::vector<size_t> outputMemoryKindSizes;
  std::string fingerprint;                  // of the optimized program, as hex digits
  std::vector<PJRT_NamedValue> costs;       // GetCostAnalysis's properties
  std::string optimizedText;                // OptimizedProgram's, printed once asked for
  std::once_flag printed;
  // The shardings extension's answers (serialized xla.OpSharding protos), made once asked
  // for; none when the program was not partitioned.
  struct Shardings {
    std::vector<std::string> bytes;
    std::vector<const char*> data;
    std::vector<size_t> sizes;
  };
  std::optional<Shardings> parameterShardings, outputShardings;
  std::once_flag shardingsMade;
};

}  // namespace kiln::runtime::pjrt

struct PJRT_Executable {
  std::shared_ptr<kiln::runtime::pjrt::CompiledProgramHandle> program;
  // The last statistics, text and signature the kiln extension returned for this handle,
  // which the caller borrows until its next such call on it.
  std::vector<std::string> statisticNames;
  std::vector<PJRT_NamedValue> statistics;
  std::string text;
  kiln::runtime::pjrt::ValueTypes parameterTypes, resultTypes;
};

struct PJRT_LoadedExecutable {
  std::shared_ptr<kiln::runtime::pjrt::CompiledProgramHandle> program;
  PJRT_Client* client = nullptr;
  // The device of each process (replica r, partition p at r * partitions + p); a
  // portable executable runs on the one device execute names instead.
  std::vector<PJRT_Device*> devices;
  std::vector<PJRT_LogicalDeviceIds> logicalIds;  // each device's (replica, partition)
  bool portable = false;
  std::atomic<bool> deleted{false};
};
