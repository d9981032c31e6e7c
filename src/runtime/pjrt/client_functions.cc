// PJRT's clients, devices, device descriptions and memories, over the plugin's clients
// (core::createClient: its options, devices and communicator); each device has one
// memory.
#include <algorithm>
#include <string>
#include <vector>

#include "runtime/plugin_core.h"
#include "runtime/pjrt/pjrt_call.h"
#include "runtime/pjrt/pjrt_functions.h"
#include "runtime/pjrt/pjrt_objects.h"

#ifndef KILN_VERSION
#error "KILN_VERSION must be defined (the project version)"
#endif

namespace kiln::runtime::pjrt {

MemoryObject::~MemoryObject() {
  for (auto& [key, entry] : userData)
    if (entry.second) entry.second(entry.first);
}

namespace {

const PJRT_Memory_FunctionTable kMemoryFunctions = {
    PJRT_Memory_FunctionTable_STRUCT_SIZE, nullptr, PJRT_Memory_STRUCT_SIZE,
    [](PJRT_Memory* memory, const void* key) -> void* {
      auto& m = *static_cast<MemoryObject*>(memory);
      std::lock_guard<std::mutex> lock(m.mutex);
      auto it = m.userData.find(key);
      return it == m.userData.end() ? nullptr : it->second.first;
    },
    [](PJRT_Memory* memory, const void* key, void* data, void (*dtor)(void*)) {
      auto& m = *static_cast<MemoryObject*>(memory);
      std::pair<void*, void (*)(void*)> old{nullptr, nullptr};
      {
        std::lock_guard<std::mutex> lock(m.mutex);
        auto& entry = m.userData[key];
        old = entry;
        entry = {data, dtor};
      }
      if (old.second && old.first != data) old.second(old.first);
    },
};

// What a client's creation options say: the devices and the memory limit as numbers,
// kiln's client options as strings.
core::ClientSettings createOptions(const PJRT_Client_Create_Args& a) {
  if (a.num_options > 0 && !a.create_options) invalid("create_options is null");
  core::ClientSettings settings;
  for (size_t i = 0; i < a.num_options; ++i) {
    const PJRT_NamedValue& option = a.create_options[i];
    const std::string where = "create_options[" + std::to_string(i) + "]";
    if (!option.name) invalid(where + " has a null name");
    const std::string name(option.name, option.name_size);
    const bool number = rawEnum(option.type) == PJRT_NamedValue_kInt64;
    if (name == "num_devices" || name == "memory_limit_bytes") {
      if (!number) invalid(where + ": " + name + " must be an int64");
      if (name == "num_devices") {
        if (option.int64_value < 0 || option.int64_value > INT32_MAX)
          invalid(where + ": num_devices is " + std::to_string(option.int64_value));
        settings.numDevices = static_cast<int>(option.int64_value);
      } else {
        settings.memoryLimit = option.int64_value;
      }
    } else if (rawEnum(option.type) == PJRT_NamedValue_kString) {
      if (!option.string_value && option.value_size > 0) invalid(where + " has a null string");
      core::setClientOption(settings, name, std::string(option.string_value ? option.string_value : "", option.value_size),
                            where);
    } else {
      invalid(where + ": " + name + " must be a string (this plugin's options: num_devices, memory_limit_bytes, "
              "communicator, collective_timeout_s, inline_execution, infeed_when_empty, platform_name)");
    }
  }
  return settings;
}

PJRT_Client& clientOf(PJRT_Client* client) { return need(client, "client"); }
PJRT_Device& deviceOf(PJRT_Device* device) { return need(device, "device"); }
PJRT_Device& describedDevice(PJRT_DeviceDescription* description) {
  return *need(description, "device_description").device;
}
MemoryObject& memoryOf(PJRT_Memory* memory) { return *static_cast<MemoryObject*>(&need(memory, "memory")); }

// A device this process addresses; another rank's is an error.
PJRT_Device& addressable(PJRT_Device* device) {
  PJRT_Device& d = deviceOf(device);
  if (!d.core)
    invalid("device " + std::to_string(d.id) + " belongs to process " + std::to_string(d.processIndex) +
            ", which this client cannot address");
  return d;
}

}  // namespace

namespace functions {

PJRT_Error* clientCreate(PJRT_Client_Create_Args* args) {
  return call("PJRT_Client_Create", args, [](PJRT_Client_Create_Args& a, const Fits& fits) {
    fits.requireOut(a.client, "client");
    const core::ClientSettings settings = createOptions(a);
    std::unique_ptr<ClientCore> created = core::createClient(settings);
    auto client = std::make_unique<PJRT_Client>();
    client->core = created.release();
    struct Undo {  // a failure below destroys the client made
      std::unique_ptr<PJRT_Client>& client;
      ~Undo() {
        if (client) core::destroyClient(std::unique_ptr<ClientCore>(client->core));
      }
    } undo{client};
    ClientCore& made = *client->core;
    client->platformVersion = std::string("kiln ") + KILN_VERSION;
    client->platformName = settings.platformName.empty() ? made.backend->name() : settings.platformName;
    const int rank = made.transport ? static_cast<int>(made.transport->rank()) : 0;
    for (DeviceCore* core : made.handles) {
      auto device = std::make_unique<PJRT_Device>();
      device->core = core;
      device->id = core->id;
      device->processIndex = rank;
      device->kind = core->kind;
      device->memory.vtable = &kMemoryFunctions;
      device->memory.device = device.get();
      device->debugString = core->description;
      // As JAX shows a device: its platform's name (kiln's, under platform_name "kiln").
      device->displayString = client->platformName + "(id=" + std::to_string(core->id) + ")";
      device->memory.description = "device memory of " + device->displayString;
      device->attributes.push_back(int64Value("memory_size_bytes", core::memorySize(*core)));
      client->handles.push_back(device.get());
      client->memories.push_back(&device->memory);
      client->devices.push_back(std::move(device));
    }
    // Under the mpi communicator, the other ranks' devices: one each, its id the rank's.
    client->allHandles = client->handles;
    for (size_t id = 0; id < made.allDevices(); ++id) {
      if (std::any_of(client->handles.begin(), client->handles.end(),
                      [&](const PJRT_Device* d) { return static_cast<size_t>(d->id) == id; }))
        continue;
      auto device = std::make_unique<PJRT_Device>();
      device->id = static_cast<int32_t>(id);
      device->processIndex = static_cast<int>(id);
      device->kind = client->handles.empty() ? "" : client->handles[0]->kind;
      device->debugString = device->kind + " device " + std::to_string(id) + " of process " + std::to_string(id);
      device->displayString = client->platformName + "(id=" + std::to_string(id) + ")";
      device->memory.vtable = &kMemoryFunctions;
      device->memory.device = device.get();
      client->allHandles.push_back(device.get());
      client->devices.push_back(std::move(device));
    }
    std::sort(client->allHandles.begin(), client->allHandles.end(),
              [](const PJRT_Device* x, const PJRT_Device* y) { return x->id < y->id; });
    a.client = handedOut(client.release());
  });
}

PJRT_Error* clientDestroy(PJRT_Client_Destroy_Args* args) {
  return call("PJRT_Client_Destroy", args, [](PJRT_Client_Destroy_Args& a, const Fits&) {
    std::unique_ptr<PJRT_Client> client = destroyed(a.client, "client");
    if (!client) return;
    core::destroyClient(std::unique_ptr<ClientCore>(client->core));
  });
}

PJRT_Error* clientPlatformName(PJRT_Client_PlatformName_Args* args) {
  return call("PJRT_Client_PlatformName", args, [](PJRT_Client_PlatformName_Args& a, const Fits&) {
    const PJRT_Client& client = clientOf(a.client);
    a.platform_name = client.platformName.data();
    a.platform_name_size = client.platformName.size();
  });
}

PJRT_Error* clientProcessIndex(PJRT_Client_ProcessIndex_Args* args) {
  return call("PJRT_Client_ProcessIndex", args, [](PJRT_Client_ProcessIndex_Args& a, const Fits&) {
    const PJRT_Client& client = clientOf(a.client);
    a.process_index = client.core->transport ? static_cast<int>(client.core->transport->rank()) : 0;
  });
}

PJRT_Error* clientPlatformVersion(PJRT_Client_PlatformVersion_Args* args) {
  return call("PJRT_Client_PlatformVersion", args, [](PJRT_Client_PlatformVersion_Args& a, const Fits&) {
    setString(clientOf(a.client).platformVersion, a.platform_version, a.platform_version_size);
  });
}

// Under the mpi communicator a client holds this process's device only; the others are
// not addressable and have no handle yet (unsupported: they are not listed).
PJRT_Error* clientDevices(PJRT_Client_Devices_Args* args) {
  return call("PJRT_Client_Devices", args, [](PJRT_Client_Devices_Args& a, const Fits&) {
    const PJRT_Client& client = clientOf(a.client);
    a.devices = client.allHandles.data();
    a.num_devices = client.allHandles.size();
  });
}

PJRT_Error* clientAddressableDevices(PJRT_Client_AddressableDevices_Args* args) {
  return call("PJRT_Client_AddressableDevices", args, [](PJRT_Client_AddressableDevices_Args& a, const Fits&) {
    const PJRT_Client& client = clientOf(a.client);
    a.addressable_devices = client.handles.data();
    a.num_addressable_devices = client.handles.size();
  });
}

PJRT_Error* clientLookupDevice(PJRT_Client_LookupDevice_Args* args) {
  return call("PJRT_Client_LookupDevice", args, [](PJRT_Client_LookupDevice_Args& a, const Fits&) {
    for (PJRT_Device* device : clientOf(a.client).allHandles)
      if (device->id == a.id) {
        a.device = device;
        return;
      }
    throw ApiFailure(FailureCode::InvalidArgument, "no device has id " + std::to_string(a.id));
  });
}

PJRT_Error* clientLookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args* args) {
  return call("PJRT_Client_LookupAddressableDevice", args,
              [](PJRT_Client_LookupAddressableDevice_Args& a, const Fits&) {
                const auto& handles = clientOf(a.client).handles;
                if (a.local_hardware_id < 0 || static_cast<size_t>(a.local_hardware_id) >= handles.size())
                  invalid("no addressable device has local hardware id " + std::to_string(a.local_hardware_id) +
                          " (the client has " + std::to_string(handles.size()) + ")");
                a.addressable_device = handles[static_cast<size_t>(a.local_hardware_id)];
              });
}

PJRT_Error* clientAddressableMemories(PJRT_Client_AddressableMemories_Args* args) {
  return call("PJRT_Client_AddressableMemories", args, [](PJRT_Client_AddressableMemories_Args& a, const Fits&) {
    const PJRT_Client& client = clientOf(a.client);
    a.addressable_memories = client.memories.data();
    a.num_addressable_memories = client.memories.size();
  });
}

PJRT_Error* deviceDescriptionId(PJRT_DeviceDescription_Id_Args* args) {
  return call("PJRT_DeviceDescription_Id", args, [](PJRT_DeviceDescription_Id_Args& a, const Fits&) {
    a.id = describedDevice(a.device_description).id;
  });
}

PJRT_Error* deviceDescriptionProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args* args) {
  return call("PJRT_DeviceDescription_ProcessIndex", args,
              [](PJRT_DeviceDescription_ProcessIndex_Args& a, const Fits&) {
                a.process_index = describedDevice(a.device_description).processIndex;
              });
}

PJRT_Error* deviceDescriptionAttributes(PJRT_DeviceDescription_Attributes_Args* args) {
  return call("PJRT_DeviceDescription_Attributes", args, [](PJRT_DeviceDescription_Attributes_Args& a, const Fits&) {
    const PJRT_Device& device = describedDevice(a.device_description);
    a.attributes = device.attributes.data();
    a.num_attributes = device.attributes.size();
  });
}

PJRT_Error* deviceDescriptionKind(PJRT_DeviceDescription_Kind_Args* args) {
  return call("PJRT_DeviceDescription_Kind", args, [](PJRT_DeviceDescription_Kind_Args& a, const Fits&) {
    setString(describedDevice(a.device_description).kind, a.device_kind, a.device_kind_size);
  });
}

PJRT_Error* deviceDescriptionDebugString(PJRT_DeviceDescription_DebugString_Args* args) {
  return call("PJRT_DeviceDescription_DebugString", args,
              [](PJRT_DeviceDescription_DebugString_Args& a, const Fits&) {
                setString(describedDevice(a.device_description).debugString, a.debug_string, a.debug_string_size);
              });
}

PJRT_Error* deviceDescriptionToString(PJRT_DeviceDescription_ToString_Args* args) {
  return call("PJRT_DeviceDescription_ToString", args, [](PJRT_DeviceDescription_ToString_Args& a, const Fits&) {
    setString(describedDevice(a.device_description).displayString, a.to_string, a.to_string_size);
  });
}

PJRT_Error* deviceGetDescription(PJRT_Device_GetDescription_Args* args) {
  return call("PJRT_Device_GetDescription", args, [](PJRT_Device_GetDescription_Args& a, const Fits&) {
    a.device_description = &deviceOf(a.device).description;
  });
}

PJRT_Error* deviceIsAddressable(PJRT_Device_IsAddressable_Args* args) {
  return call("PJRT_Device_IsAddressable", args, [](PJRT_Device_IsAddressable_Args& a, const Fits&) {
    a.is_addressable = deviceOf(a.device).core != nullptr;
  });
}

PJRT_Error* deviceLocalHardwareId(PJRT_Device_LocalHardwareId_Args* args) {
  return call("PJRT_Device_LocalHardwareId", args, [](PJRT_Device_LocalHardwareId_Args& a, const Fits&) {
    const PJRT_Device& device = addressable(a.device);
    const auto& all = device.core->client->handles;
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i] == device.core) a.local_hardware_id = static_cast<int>(i);
  });
}

PJRT_Error* deviceAddressableMemories(PJRT_Device_AddressableMemories_Args* args) {
  return call("PJRT_Device_AddressableMemories", args, [](PJRT_Device_AddressableMemories_Args& a, const Fits&) {
    PJRT_Device& device = deviceOf(a.device);
    a.memories = device.memories;
    a.num_memories = device.core ? 1 : 0;  // another rank's memory is not this client's
  });
}

PJRT_Error* deviceDefaultMemory(PJRT_Device_DefaultMemory_Args* args) {
  return call("PJRT_Device_DefaultMemory", args, [](PJRT_Device_DefaultMemory_Args& a, const Fits&) {
    a.memory = &addressable(a.device).memory;
  });
}

PJRT_Error* deviceMemoryStats(PJRT_Device_MemoryStats_Args* args) {
  return call("PJRT_Device_MemoryStats", args, [](PJRT_Device_MemoryStats_Args& a, const Fits&) {
    const DeviceMemory::Stats stats = addressable(a.device).core->deviceMemory->stats();
    a.bytes_in_use = stats.inUse;
    a.peak_bytes_in_use = stats.peak;
    a.peak_bytes_in_use_is_set = true;
    a.bytes_limit = stats.limit;
    a.bytes_limit_is_set = stats.limit > 0;
    a.num_allocs = stats.buffers;  // the buffers alive now
    a.num_allocs_is_set = true;
  });
}

// A device's one attribute: memory_size_bytes, what its memory holds at most (the
// client's memory limit, or the host's memory).
PJRT_Error* deviceGetAttributes(PJRT_Device_GetAttributes_Args* args) {
  return call("PJRT_Device_GetAttributes", args, [](PJRT_Device_GetAttributes_Args& a, const Fits&) {
    const PJRT_Device& device = deviceOf(a.device);
    a.attributes = device.attributes.data();
    a.num_attributes = device.attributes.size();
    a.device_attributes = nullptr;  // the list lives as long as the device: nothing to free
    a.attributes_deleter = [](PJRT_Device_Attributes*) {};
  });
}

PJRT_Error* memoryId(PJRT_Memory_Id_Args* args) {
  return call("PJRT_Memory_Id", args, [](PJRT_Memory_Id_Args& a, const Fits&) {
    a.id = memoryOf(a.memory).device->id;
  });
}

// The memory of a device, from the framework's side, though the cpu and interp plugins
// keep it in the host's.
PJRT_Error* memoryKind(PJRT_Memory_Kind_Args* args) {
  return call("PJRT_Memory_Kind", args, [](PJRT_Memory_Kind_Args& a, const Fits&) {
    memoryOf(a.memory);
    static const std::string kind = "device";
    setString(kind, a.kind, a.kind_size);
  });
}

PJRT_Error* memoryKindId(PJRT_Memory_Kind_Id_Args* args) {
  return call("PJRT_Memory_Kind_Id", args, [](PJRT_Memory_Kind_Id_Args& a, const Fits&) {
    memoryOf(a.memory);
    a.kind_id = 0;
  });
}

PJRT_Error* memoryDebugString(PJRT_Memory_DebugString_Args* args) {
  return call("PJRT_Memory_DebugString", args, [](PJRT_Memory_DebugString_Args& a, const Fits&) {
    setString(memoryOf(a.memory).description, a.debug_string, a.debug_string_size);
  });
}

PJRT_Error* memoryToString(PJRT_Memory_ToString_Args* args) {
  return call("PJRT_Memory_ToString", args, [](PJRT_Memory_ToString_Args& a, const Fits&) {
    setString(memoryOf(a.memory).description, a.to_string, a.to_string_size);
  });
}

PJRT_Error* memoryAddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args) {
  return call("PJRT_Memory_AddressableByDevices", args, [](PJRT_Memory_AddressableByDevices_Args& a, const Fits&) {
    MemoryObject& memory = memoryOf(a.memory);
    a.devices = &memory.device;
    a.num_devices = 1;
  });
}

}  // namespace functions
}  // namespace kiln::runtime::pjrt
