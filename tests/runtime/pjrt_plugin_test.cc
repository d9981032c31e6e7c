// kiln's plugins through PJRT's C API (GetPjrtApi), as any PJRT client drives them: the
// table and its version, errors, the plugin's attributes, clients, devices, their
// descriptions and memories. What the table does not implement yet answers
// UNIMPLEMENTED with its own name.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kiln/pjrt/c_api.h"

namespace {

struct Plugin {
  const char* name;
  const char* path;
};

void PrintTo(const Plugin& p, std::ostream* os) { *os << p.name; }

class PjrtPluginTest : public ::testing::TestWithParam<Plugin> {
 protected:
  void SetUp() override {
    handle_ = dlopen(GetParam().path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    auto get = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(handle_, "GetPjrtApi"));
    ASSERT_NE(get, nullptr) << "no GetPjrtApi in " << GetParam().path;
    api_ = get();
    ASSERT_NE(api_, nullptr);
  }

  // The error's code and message (destroying it); OK and "" for none.
  std::pair<PJRT_Error_Code, std::string> take(PJRT_Error* error) const {
    if (!error) return {PJRT_Error_Code_OK, ""};
    PJRT_Error_GetCode_Args code{PJRT_Error_GetCode_Args_STRUCT_SIZE, nullptr, error};
    EXPECT_EQ(api_->PJRT_Error_GetCode(&code), nullptr);
    PJRT_Error_Message_Args message{PJRT_Error_Message_Args_STRUCT_SIZE, nullptr, error};
    api_->PJRT_Error_Message(&message);
    std::string text(message.message, message.message_size);
    PJRT_Error_Destroy_Args destroy{PJRT_Error_Destroy_Args_STRUCT_SIZE, nullptr, error};
    api_->PJRT_Error_Destroy(&destroy);
    return {code.code, text};
  }

  PJRT_Client* createClient(int64_t devices) const {
    PJRT_NamedValue option{};
    option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    option.name = "num_devices";
    option.name_size = 11;
    option.type = PJRT_NamedValue_kInt64;
    option.int64_value = devices;
    option.value_size = 1;
    PJRT_Client_Create_Args args{};
    args.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
    args.create_options = &option;
    args.num_options = 1;
    EXPECT_EQ(take(api_->PJRT_Client_Create(&args)).second, "");
    return args.client;
  }

  void destroy(PJRT_Client* client) const {
    PJRT_Client_Destroy_Args args{PJRT_Client_Destroy_Args_STRUCT_SIZE, nullptr, client};
    EXPECT_EQ(take(api_->PJRT_Client_Destroy(&args)).second, "");
  }

  void* handle_ = nullptr;
  const PJRT_Api* api_ = nullptr;
};

TEST_P(PjrtPluginTest, TheTableIsVersionedAndFull) {
  EXPECT_EQ(api_->struct_size, PJRT_Api_STRUCT_SIZE);
  EXPECT_EQ(api_->pjrt_api_version.major_version, PJRT_API_MAJOR);
  EXPECT_EQ(api_->pjrt_api_version.minor_version, 112);
  // Clients call what the table holds without checking for NULL.
#define KILN_EXPECT_ENTRY(name) EXPECT_NE(api_->name, nullptr) << #name;
  KILN_PJRT_API_FUNCTIONS(KILN_EXPECT_ENTRY)
#undef KILN_EXPECT_ENTRY
  PJRT_Client_Compile_Args compile{};
  compile.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
  auto [code, message] = take(api_->PJRT_Client_Compile(&compile));
  EXPECT_EQ(code, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(message, std::string("unsupported: PJRT_Client_Compile (not implemented by kiln's ") + GetParam().name +
                         " plugin)");
}

TEST_P(PjrtPluginTest, MisuseIsAnErrorObject) {
  auto [code, message] = take(api_->PJRT_Client_Create(nullptr));
  EXPECT_EQ(code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(message, "PJRT_Client_Create: the args pointer is null");
  PJRT_Client_Devices_Args devices{};
  EXPECT_NE(take(api_->PJRT_Client_Devices(&devices)).second.find("struct_size is 0"), std::string::npos);
  devices.struct_size = PJRT_Client_Devices_Args_STRUCT_SIZE;
  EXPECT_EQ(take(api_->PJRT_Client_Devices(&devices)).second, "PJRT_Client_Devices: client is null");
  // An unknown option names itself and the ones there are.
  PJRT_NamedValue option{};
  option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  option.name = "colour";
  option.name_size = 6;
  option.type = PJRT_NamedValue_kString;
  option.string_value = "blue";
  option.value_size = 4;
  PJRT_Client_Create_Args create{};
  create.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  create.create_options = &option;
  create.num_options = 1;
  std::tie(code, message) = take(api_->PJRT_Client_Create(&create));
  EXPECT_EQ(code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(message.find("unknown client option 'colour'"), std::string::npos) << message;
  // Errors read the same through their own table; destroying none is nothing.
  PJRT_Error* error = api_->PJRT_Client_Create(nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->vtable->get_code(error), PJRT_Error_Code_INVALID_ARGUMENT);
  int payloads = 0;
  PJRT_Error_ForEachPayload_Args each{PJRT_Error_ForEachPayload_Args_STRUCT_SIZE, nullptr, error,
                                      [](const char*, size_t, const char*, size_t, void* n) { ++*static_cast<int*>(n); },
                                      &payloads};
  EXPECT_EQ(api_->PJRT_Error_ForEachPayload(&each), nullptr);
  EXPECT_EQ(payloads, 0);
  error->vtable->destroy(error);
  PJRT_Error_Destroy_Args none{PJRT_Error_Destroy_Args_STRUCT_SIZE, nullptr, nullptr};
  api_->PJRT_Error_Destroy(&none);
}

TEST_P(PjrtPluginTest, AttributesNameThePlugin) {
  PJRT_Plugin_Initialize_Args init{PJRT_Plugin_Initialize_Args_STRUCT_SIZE, nullptr};
  EXPECT_EQ(take(api_->PJRT_Plugin_Initialize(&init)).second, "");
  PJRT_Plugin_Attributes_Args args{PJRT_Plugin_Attributes_Args_STRUCT_SIZE, nullptr};
  ASSERT_EQ(take(api_->PJRT_Plugin_Attributes(&args)).second, "");
  std::vector<std::string> seen;
  for (size_t i = 0; i < args.num_attributes; ++i) {
    const PJRT_NamedValue& v = args.attributes[i];
    ASSERT_EQ(v.type, PJRT_NamedValue_kString);
    seen.push_back(std::string(v.name, v.name_size) + "=" + std::string(v.string_value, v.value_size));
  }
  EXPECT_NE(std::find(seen.begin(), seen.end(), std::string("kiln_backend=") + GetParam().name), seen.end());
}

TEST_P(PjrtPluginTest, ClientsDevicesAndMemories) {
  PJRT_Client* client = createClient(3);
  ASSERT_NE(client, nullptr);
  PJRT_Client_PlatformName_Args platform{PJRT_Client_PlatformName_Args_STRUCT_SIZE, nullptr, client};
  ASSERT_EQ(take(api_->PJRT_Client_PlatformName(&platform)).second, "");
  EXPECT_EQ(std::string(platform.platform_name, platform.platform_name_size), GetParam().name);
  PJRT_Client_ProcessIndex_Args process{PJRT_Client_ProcessIndex_Args_STRUCT_SIZE, nullptr, client};
  ASSERT_EQ(take(api_->PJRT_Client_ProcessIndex(&process)).second, "");
  EXPECT_EQ(process.process_index, 0);

  PJRT_Client_Devices_Args devices{PJRT_Client_Devices_Args_STRUCT_SIZE, nullptr, client};
  ASSERT_EQ(take(api_->PJRT_Client_Devices(&devices)).second, "");
  ASSERT_EQ(devices.num_devices, 3u);
  for (size_t i = 0; i < devices.num_devices; ++i) {
    PJRT_Device* device = devices.devices[i];
    PJRT_Device_GetDescription_Args get{PJRT_Device_GetDescription_Args_STRUCT_SIZE, nullptr, device};
    ASSERT_EQ(take(api_->PJRT_Device_GetDescription(&get)).second, "");
    PJRT_DeviceDescription_Id_Args id{PJRT_DeviceDescription_Id_Args_STRUCT_SIZE, nullptr, get.device_description};
    ASSERT_EQ(take(api_->PJRT_DeviceDescription_Id(&id)).second, "");
    EXPECT_EQ(id.id, static_cast<int>(i));
    PJRT_DeviceDescription_Kind_Args kind{PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE, nullptr,
                                          get.device_description};
    ASSERT_EQ(take(api_->PJRT_DeviceDescription_Kind(&kind)).second, "");
    EXPECT_EQ(std::string(kind.device_kind, kind.device_kind_size), GetParam().name);
    PJRT_DeviceDescription_ToString_Args shown{PJRT_DeviceDescription_ToString_Args_STRUCT_SIZE, nullptr,
                                               get.device_description};
    ASSERT_EQ(take(api_->PJRT_DeviceDescription_ToString(&shown)).second, "");
    EXPECT_EQ(std::string(shown.to_string, shown.to_string_size),
              std::string(GetParam().name) + "(id=" + std::to_string(i) + ")");
    PJRT_Device_LocalHardwareId_Args local{PJRT_Device_LocalHardwareId_Args_STRUCT_SIZE, nullptr, device};
    ASSERT_EQ(take(api_->PJRT_Device_LocalHardwareId(&local)).second, "");
    EXPECT_EQ(local.local_hardware_id, static_cast<int>(i));
    PJRT_Client_LookupDevice_Args lookup{PJRT_Client_LookupDevice_Args_STRUCT_SIZE, nullptr, client, id.id};
    ASSERT_EQ(take(api_->PJRT_Client_LookupDevice(&lookup)).second, "");
    EXPECT_EQ(lookup.device, device);

    // One memory per device, which knows its device.
    PJRT_Device_DefaultMemory_Args memory{PJRT_Device_DefaultMemory_Args_STRUCT_SIZE, nullptr, device};
    ASSERT_EQ(take(api_->PJRT_Device_DefaultMemory(&memory)).second, "");
    PJRT_Memory_Kind_Args memoryKind{PJRT_Memory_Kind_Args_STRUCT_SIZE, nullptr, memory.memory};
    ASSERT_EQ(take(api_->PJRT_Memory_Kind(&memoryKind)).second, "");
    EXPECT_EQ(std::string(memoryKind.kind, memoryKind.kind_size), "device");
    PJRT_Memory_AddressableByDevices_Args by{PJRT_Memory_AddressableByDevices_Args_STRUCT_SIZE, nullptr,
                                             memory.memory};
    ASSERT_EQ(take(api_->PJRT_Memory_AddressableByDevices(&by)).second, "");
    ASSERT_EQ(by.num_devices, 1u);
    EXPECT_EQ(by.devices[0], device);
    PJRT_Device_AddressableMemories_Args memories{PJRT_Device_AddressableMemories_Args_STRUCT_SIZE, nullptr, device};
    ASSERT_EQ(take(api_->PJRT_Device_AddressableMemories(&memories)).second, "");
    ASSERT_EQ(memories.num_memories, 1u);
    EXPECT_EQ(memories.memories[0], memory.memory);

    PJRT_Device_MemoryStats_Args stats{};
    stats.struct_size = PJRT_Device_MemoryStats_Args_STRUCT_SIZE;
    stats.device = device;
    ASSERT_EQ(take(api_->PJRT_Device_MemoryStats(&stats)).second, "");
    EXPECT_EQ(stats.bytes_in_use, 0);
    PJRT_Device_GetAttributes_Args attributes{};
    attributes.struct_size = PJRT_Device_GetAttributes_Args_STRUCT_SIZE;
    attributes.device = device;
    ASSERT_EQ(take(api_->PJRT_Device_GetAttributes(&attributes)).second, "");
    ASSERT_NE(attributes.attributes_deleter, nullptr);
    attributes.attributes_deleter(attributes.device_attributes);
  }
  PJRT_Client_LookupAddressableDevice_Args missing{PJRT_Client_LookupAddressableDevice_Args_STRUCT_SIZE, nullptr,
                                                    client, 3};
  EXPECT_EQ(take(api_->PJRT_Client_LookupAddressableDevice(&missing)).first, PJRT_Error_Code_INVALID_ARGUMENT);
  PJRT_Client_AddressableMemories_Args all{PJRT_Client_AddressableMemories_Args_STRUCT_SIZE, nullptr, client};
  ASSERT_EQ(take(api_->PJRT_Client_AddressableMemories(&all)).second, "");
  EXPECT_EQ(all.num_addressable_memories, 3u);

  // The framework's data on a memory, freed with the client.
  static int freed = 0;
  freed = 0;
  PJRT_Memory* memory = all.addressable_memories[0];
  static const char key = 0;
  static int data = 7;
  memory->vtable->set_user_data(memory, &key, &data, [](void*) { ++freed; });
  EXPECT_EQ(memory->vtable->get_user_data(memory, &key), &data);
  EXPECT_EQ(memory->vtable->get_user_data(memory, &data), nullptr);
  destroy(client);
  EXPECT_EQ(freed, 1);
}

// A caller built against a newer header passes larger structs: the fields it adds are
// not read.
TEST_P(PjrtPluginTest, LargerArgsStructsAreAccepted) {
  PJRT_Client* client = createClient(1);
  struct {
    PJRT_Client_Devices_Args args;
    char newer[32];
  } bigger{};
  bigger.args.struct_size = sizeof bigger;
  bigger.args.client = client;
  ASSERT_EQ(take(api_->PJRT_Client_Devices(&bigger.args)).second, "");
  EXPECT_EQ(bigger.args.num_devices, 1u);
  destroy(client);
}

INSTANTIATE_TEST_SUITE_P(Plugins, PjrtPluginTest,
                         ::testing::Values(Plugin{"cpu", KILN_CPU_PLUGIN}, Plugin{"interp", KILN_INTERP_PLUGIN}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
