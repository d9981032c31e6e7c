// kiln's plugins through PJRT's C API (GetPjrtApi), as any PJRT client drives them: the
// table and its version, errors, the plugin's attributes, clients, devices, their
// descriptions and memories, buffers and events, compiling MLIR text and portable
// artifacts (bytecode), and executing.
// What the table does not implement yet answers UNIMPLEMENTED with its own name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kiln/pjrt/shardings_extension.h"
#include "runtime/compile_options_proto.h"
#include "runtime/pjrt_test_util.h"

namespace {

using kiln_test::compileOptions;
using kiln_test::Plugin;

class PjrtPluginTest : public kiln_test::PjrtTest {};

TEST_P(PjrtPluginTest, TheTableIsVersionedAndFull) {
  EXPECT_EQ(api_->struct_size, PJRT_Api_STRUCT_SIZE);
  EXPECT_EQ(api_->pjrt_api_version.major_version, PJRT_API_MAJOR);
  EXPECT_EQ(api_->pjrt_api_version.minor_version, PJRT_API_MINOR);
  // Clients call what the table holds without checking for NULL.
#define KILN_EXPECT_ENTRY(name) EXPECT_NE(api_->name, nullptr) << #name;
  KILN_PJRT_API_FUNCTIONS(KILN_EXPECT_ENTRY)
#undef KILN_EXPECT_ENTRY
  PJRT_Client_CreateUninitializedBuffer_Args uninitialized{};
  uninitialized.struct_size = PJRT_Client_CreateUninitializedBuffer_Args_STRUCT_SIZE;
  auto [code, message] = take(api_->PJRT_Client_CreateUninitializedBuffer(&uninitialized));
  EXPECT_EQ(code, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(message, std::string("unsupported: PJRT_Client_CreateUninitializedBuffer (not implemented by kiln's ") +
                         GetParam().name + " plugin)");
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
    if (std::string(v.name, v.name_size) == "stablehlo_current_version") {
      // The StableHLO whose portable artifacts it reads, which a framework serializes for.
      ASSERT_EQ(v.type, PJRT_NamedValue_kInt64List);
      EXPECT_EQ(std::vector<int64_t>(v.int64_array_value, v.int64_array_value + v.value_size),
                (std::vector<int64_t>{1, 17, 0}));
      seen.push_back("stablehlo_current_version");
      continue;
    }
    ASSERT_TRUE(v.type == PJRT_NamedValue_kString || v.type == PJRT_NamedValue_kBool);
    seen.push_back(std::string(v.name, v.name_size) + "=" +
                   (v.type == PJRT_NamedValue_kString ? std::string(v.string_value, v.value_size)
                                                      : std::string(v.bool_value ? "true" : "false")));
  }
  EXPECT_NE(std::find(seen.begin(), seen.end(), std::string("kiln_backend=") + GetParam().name), seen.end());
  // What the kiln client asks before it uses them: profiles (the cpu plugin's), MPI.
  const bool cpu = std::string(GetParam().name) == "cpu";
  EXPECT_NE(std::find(seen.begin(), seen.end(), std::string("kiln_profiles=") + (cpu ? "true" : "false")), seen.end());
  EXPECT_EQ(std::count_if(seen.begin(), seen.end(), [](const std::string& a) { return a.starts_with("kiln_mpi="); }), 1);
  EXPECT_NE(std::find(seen.begin(), seen.end(), "stablehlo_current_version"), seen.end());
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

// Every element type a buffer can hold, in and out byte for byte (one byte per element
// for the sub-byte types, as ml_dtypes holds them).
TEST_P(PjrtPluginTest, BuffersRoundTripEveryType) {
  PJRT_Client* client = createClient(1);
  const std::pair<PJRT_Buffer_Type, size_t> types[] = {
      {PJRT_Buffer_Type_PRED, 1},        {PJRT_Buffer_Type_S2, 1},         {PJRT_Buffer_Type_S4, 1},
      {PJRT_Buffer_Type_S8, 1},          {PJRT_Buffer_Type_S16, 2},        {PJRT_Buffer_Type_S32, 4},
      {PJRT_Buffer_Type_S64, 8},         {PJRT_Buffer_Type_U2, 1},         {PJRT_Buffer_Type_U4, 1},
      {PJRT_Buffer_Type_U8, 1},          {PJRT_Buffer_Type_U16, 2},        {PJRT_Buffer_Type_U32, 4},
      {PJRT_Buffer_Type_U64, 8},         {PJRT_Buffer_Type_F4E2M1FN, 1},   {PJRT_Buffer_Type_F8E3M4, 1},
      {PJRT_Buffer_Type_F8E4M3, 1},      {PJRT_Buffer_Type_F8E4M3FN, 1},   {PJRT_Buffer_Type_F8E4M3FNUZ, 1},
      {PJRT_Buffer_Type_F8E4M3B11FNUZ, 1}, {PJRT_Buffer_Type_F8E5M2, 1},   {PJRT_Buffer_Type_F8E5M2FNUZ, 1},
      {PJRT_Buffer_Type_F8E8M0FNU, 1},   {PJRT_Buffer_Type_BF16, 2},       {PJRT_Buffer_Type_F16, 2},
      {PJRT_Buffer_Type_F32, 4},         {PJRT_Buffer_Type_F64, 8},        {PJRT_Buffer_Type_C64, 8},
      {PJRT_Buffer_Type_C128, 16}};
  for (const auto& [type, width] : types) {
    // Valid values of every type: 0 or 1 per element (a bool's, a 2-bit int's).
    std::vector<uint8_t> data(6 * width, 0);
    for (size_t i = 0; i < 6; ++i) data[i * width] = static_cast<uint8_t>(i % 2);
    PJRT_Buffer* buffer = fromHost(client, nullptr, data.data(), type, {2, 3});
    ASSERT_NE(buffer, nullptr) << type;
    PJRT_Buffer_ElementType_Args element{PJRT_Buffer_ElementType_Args_STRUCT_SIZE, nullptr, buffer};
    ASSERT_EQ(take(api_->PJRT_Buffer_ElementType(&element)).second, "");
    EXPECT_EQ(element.type, type);
    PJRT_Buffer_OnDeviceSizeInBytes_Args size{PJRT_Buffer_OnDeviceSizeInBytes_Args_STRUCT_SIZE, nullptr, buffer};
    ASSERT_EQ(take(api_->PJRT_Buffer_OnDeviceSizeInBytes(&size)).second, "");
    EXPECT_EQ(size.on_device_size_in_bytes, data.size()) << type;
    EXPECT_EQ(toHost(buffer), data) << type;
    destroy(buffer);
  }
  // A token holds nothing.
  PJRT_Buffer* token = fromHost(client, nullptr, nullptr, PJRT_Buffer_Type_TOKEN, {});
  PJRT_Buffer_ElementType_Args tokenType{PJRT_Buffer_ElementType_Args_STRUCT_SIZE, nullptr, token};
  ASSERT_EQ(take(api_->PJRT_Buffer_ElementType(&tokenType)).second, "");
  EXPECT_EQ(tokenType.type, PJRT_Buffer_Type_TOKEN);
  EXPECT_TRUE(toHost(token).empty());
  destroy(token);
  // Types kiln has no elements for are refused, by name.
  uint8_t one = 1;
  PJRT_Client_BufferFromHostBuffer_Args args{};
  args.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  args.client = client;
  args.data = &one;
  args.type = PJRT_Buffer_Type_S1;
  args.device = device(client, 0);
  auto [code, message] = take(api_->PJRT_Client_BufferFromHostBuffer(&args));
  EXPECT_EQ(code, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_NE(message.find("unsupported: buffer type"), std::string::npos) << message;
  destroy(client);
}

TEST_P(PjrtPluginTest, BuffersFromStridedAndBorrowedHostMemory) {
  PJRT_Client* client = createClient(1);
  PJRT_Device* first = device(client, 0);
  // A 3x2 view of a 2x3 row-major array (its transpose): strides of 4 and 12 bytes.
  const float matrix[6] = {1, 2, 3, 4, 5, 6};
  PJRT_Buffer* transposed = fromHost(client, first, matrix, PJRT_Buffer_Type_F32, {3, 2}, {4, 12});
  std::vector<uint8_t> bytes = toHost(transposed);
  std::vector<float> values(6);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  EXPECT_EQ(values, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  destroy(transposed);
  // Negative strides read backwards from the element `data` points at.
  PJRT_Buffer* reversed = fromHost(client, first, matrix + 5, PJRT_Buffer_Type_F32, {6}, {-4});
  bytes = toHost(reversed);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  EXPECT_EQ(values, (std::vector<float>{6, 5, 4, 3, 2, 1}));
  destroy(reversed);
  // Strides counted but not given are an error, not a crash.
  {
    PJRT_Client_BufferFromHostBuffer_Args bad{};
    bad.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
    bad.client = client;
    bad.data = matrix;
    bad.type = PJRT_Buffer_Type_F32;
    const int64_t six[] = {6};
    bad.dims = six;
    bad.num_dims = 1;
    bad.num_byte_strides = 1;
    bad.device = first;
    EXPECT_EQ(take(api_->PJRT_Client_BufferFromHostBuffer(&bad)).first, PJRT_Error_Code_INVALID_ARGUMENT);
  }
  // Immutable only during the call: the bytes may change as soon as it returns.
  float scratch[2] = {7, 8};
  PJRT_Client_BufferFromHostBuffer_Args args{};
  args.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  args.client = client;
  args.data = scratch;
  args.type = PJRT_Buffer_Type_F32;
  const int64_t dims[] = {2};
  args.dims = dims;
  args.num_dims = 1;
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  args.device = first;
  ASSERT_EQ(take(api_->PJRT_Client_BufferFromHostBuffer(&args)).second, "");
  // The bytes were read in the call: the host memory is free at once.
  PJRT_Event_IsReady_Args free{PJRT_Event_IsReady_Args_STRUCT_SIZE, nullptr, args.done_with_host_buffer};
  ASSERT_EQ(take(api_->PJRT_Event_IsReady(&free)).second, "");
  EXPECT_TRUE(free.is_ready);
  scratch[0] = scratch[1] = -1;
  EXPECT_EQ(await(args.done_with_host_buffer), "");
  bytes = toHost(args.buffer);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  EXPECT_EQ(values[0], 7);
  EXPECT_EQ(values[1], 8);
  destroy(args.buffer);
  destroy(client);
}

TEST_P(PjrtPluginTest, BuffersBetweenDevicesAndDeleted) {
  PJRT_Client* client = createClient(2);
  PJRT_Device* first = device(client, 0);
  PJRT_Device* second = device(client, 1);
  const int32_t data[4] = {1, 2, 3, 4};
  PJRT_Buffer* buffer = fromHost(client, first, data, PJRT_Buffer_Type_S32, {4});
  PJRT_Buffer_Device_Args on{PJRT_Buffer_Device_Args_STRUCT_SIZE, nullptr, buffer};
  ASSERT_EQ(take(api_->PJRT_Buffer_Device(&on)).second, "");
  EXPECT_EQ(on.device, first);
  PJRT_Buffer_IsOnCpu_Args cpu{PJRT_Buffer_IsOnCpu_Args_STRUCT_SIZE, nullptr, buffer};
  ASSERT_EQ(take(api_->PJRT_Buffer_IsOnCpu(&cpu)).second, "");
  EXPECT_FALSE(cpu.is_on_cpu);
  PJRT_Device_MemoryStats_Args stats{};
  stats.struct_size = PJRT_Device_MemoryStats_Args_STRUCT_SIZE;
  stats.device = first;
  ASSERT_EQ(take(api_->PJRT_Device_MemoryStats(&stats)).second, "");
  EXPECT_EQ(stats.bytes_in_use, 16);

  PJRT_Buffer_CopyToDevice_Args copy{PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE, nullptr, buffer, second};
  ASSERT_EQ(take(api_->PJRT_Buffer_CopyToDevice(&copy)).second, "");
  on.buffer = copy.dst_buffer;
  ASSERT_EQ(take(api_->PJRT_Buffer_Device(&on)).second, "");
  EXPECT_EQ(on.device, second);
  EXPECT_EQ(toHost(copy.dst_buffer), toHost(buffer));
  PJRT_Buffer_Memory_Args memory{PJRT_Buffer_Memory_Args_STRUCT_SIZE, nullptr, copy.dst_buffer};
  ASSERT_EQ(take(api_->PJRT_Buffer_Memory(&memory)).second, "");
  PJRT_Buffer_CopyToMemory_Args back{PJRT_Buffer_CopyToMemory_Args_STRUCT_SIZE, nullptr, copy.dst_buffer,
                                     memory.memory};
  ASSERT_EQ(take(api_->PJRT_Buffer_CopyToMemory(&back)).second, "");
  EXPECT_EQ(toHost(back.dst_buffer), toHost(buffer));
  destroy(back.dst_buffer);
  destroy(copy.dst_buffer);

  // The ready event, polled and with a callback that owns its (null) error.
  PJRT_Buffer_ReadyEvent_Args ready{PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE, nullptr, buffer};
  ASSERT_EQ(take(api_->PJRT_Buffer_ReadyEvent(&ready)).second, "");
  static int called = 0;
  called = 0;
  PJRT_Event_OnReady_Args onReady{PJRT_Event_OnReady_Args_STRUCT_SIZE, nullptr, ready.event,
                                  [](PJRT_Error* error, void*) { called += error == nullptr ? 1 : 100; }, nullptr};
  ASSERT_EQ(take(api_->PJRT_Event_OnReady(&onReady)).second, "");
  PJRT_Event_Error_Args error{PJRT_Event_Error_Args_STRUCT_SIZE, nullptr, ready.event};
  EXPECT_EQ(take(api_->PJRT_Event_Error(&error)).second, "");  // awaited above: ready, no failure
  EXPECT_EQ(await(ready.event), "");
  EXPECT_EQ(called, 1);

  // Sizes and layouts the plugin refuses.
  int32_t small[2];
  PJRT_Buffer_ToHostBuffer_Args out{};
  out.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  out.src = buffer;
  out.dst = small;
  out.dst_size = sizeof small;
  EXPECT_EQ(take(api_->PJRT_Buffer_ToHostBuffer(&out)).first, PJRT_Error_Code_INVALID_ARGUMENT);
  const int64_t minorToMajor[] = {0};
  PJRT_Buffer_MemoryLayout layout{};
  layout.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled.minor_to_major = minorToMajor;
  layout.tiled.minor_to_major_size = 1;
  const int64_t tile[] = {2};
  const size_t tileSizes[] = {1};
  layout.tiled.tile_dims = tile;
  layout.tiled.tile_dim_sizes = tileSizes;
  layout.tiled.num_tiles = 1;
  out.host_layout = &layout;
  out.dst_size = 16;
  int32_t whole[4];
  out.dst = whole;
  EXPECT_EQ(take(api_->PJRT_Buffer_ToHostBuffer(&out)).first, PJRT_Error_Code_UNIMPLEMENTED);

  // Deleted: its memory is free, and later reads fail.
  PJRT_Buffer_Delete_Args remove{PJRT_Buffer_Delete_Args_STRUCT_SIZE, nullptr, buffer};
  ASSERT_EQ(take(api_->PJRT_Buffer_Delete(&remove)).second, "");
  PJRT_Buffer_IsDeleted_Args deleted{PJRT_Buffer_IsDeleted_Args_STRUCT_SIZE, nullptr, buffer};
  ASSERT_EQ(take(api_->PJRT_Buffer_IsDeleted(&deleted)).second, "");
  EXPECT_TRUE(deleted.is_deleted);
  ASSERT_EQ(take(api_->PJRT_Device_MemoryStats(&stats)).second, "");
  EXPECT_EQ(stats.bytes_in_use, 0);
  out.host_layout = nullptr;
  EXPECT_EQ(take(api_->PJRT_Buffer_ToHostBuffer(&out)).first, PJRT_Error_Code_FAILED_PRECONDITION);
  destroy(buffer);
  destroy(client);
}

constexpr const char* kAddMultiply = R"(
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %s = stablehlo.add %x, %y : tensor<3xf32>
  %p = stablehlo.multiply %s, %x : tensor<3xf32>
  %i = stablehlo.convert %p : (tensor<3xf32>) -> tensor<3xi32>
  return %p, %i : tensor<3xf32>, tensor<3xi32>
})";

TEST_P(PjrtPluginTest, CompilesMlirTextAndExecutes) {
  PJRT_Client* client = createClient(1);
  PJRT_LoadedExecutable* loaded = compile(client, kAddMultiply, compileOptions("default.pb"));
  ASSERT_NE(loaded, nullptr);
  PJRT_LoadedExecutable_GetExecutable_Args get{PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, nullptr, loaded};
  ASSERT_EQ(take(api_->PJRT_LoadedExecutable_GetExecutable(&get)).second, "");
  PJRT_Executable_NumOutputs_Args outputs{PJRT_Executable_NumOutputs_Args_STRUCT_SIZE, nullptr, get.executable};
  ASSERT_EQ(take(api_->PJRT_Executable_NumOutputs(&outputs)).second, "");
  EXPECT_EQ(outputs.num_outputs, 2u);
  PJRT_Executable_OutputElementTypes_Args types{PJRT_Executable_OutputElementTypes_Args_STRUCT_SIZE, nullptr,
                                                get.executable};
  ASSERT_EQ(take(api_->PJRT_Executable_OutputElementTypes(&types)).second, "");
  ASSERT_EQ(types.num_output_types, 2u);
  EXPECT_EQ(types.output_types[0], PJRT_Buffer_Type_F32);
  EXPECT_EQ(types.output_types[1], PJRT_Buffer_Type_S32);
  PJRT_Executable_OutputDimensions_Args dims{PJRT_Executable_OutputDimensions_Args_STRUCT_SIZE, nullptr,
                                             get.executable};
  ASSERT_EQ(take(api_->PJRT_Executable_OutputDimensions(&dims)).second, "");
  ASSERT_EQ(dims.num_outputs, 2u);
  EXPECT_EQ(dims.dim_sizes[0], 1u);
  EXPECT_EQ(dims.dims[0], 3);
  EXPECT_EQ(dims.dims[1], 3);
  PJRT_Executable_Name_Args name{PJRT_Executable_Name_Args_STRUCT_SIZE, nullptr, get.executable};
  ASSERT_EQ(take(api_->PJRT_Executable_Name(&name)).second, "");
  EXPECT_EQ(std::string(name.executable_name, name.executable_name_size), "main");
  PJRT_Executable_Destroy_Args drop{PJRT_Executable_Destroy_Args_STRUCT_SIZE, nullptr, get.executable};
  ASSERT_EQ(take(api_->PJRT_Executable_Destroy(&drop)).second, "");

  PJRT_Device* only = device(client, 0);
  PJRT_Buffer* x = floats(client, only, {1, 2, 3});
  PJRT_Buffer* y = floats(client, only, {0.5, 0.5, 0.5});
  auto results = execute(loaded, {{x, y}}, 2);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{1.5, 5, 10.5}));
  EXPECT_EQ(deviceOf(results[0][1]), only);
  // The same buffers run again; results are new buffers.
  auto again = execute(loaded, {{results[0][0], y}}, 2);
  EXPECT_EQ(floatsOf(again[0][0]), (std::vector<float>{3, 27.5, 115.5}));
  for (auto* b : {x, y, results[0][0], results[0][1], again[0][0], again[0][1]}) destroy(b);
  destroy(loaded);
  destroy(client);
}

// The device assignment jaxlib wrote: replica 0 on device 1, replica 1 on device 0.
TEST_P(PjrtPluginTest, ReplicasRunOnTheAssignedDevices) {
  PJRT_Client* client = createClient(2);
  PJRT_Device* first = device(client, 0);
  PJRT_Device* second = device(client, 1);
  PJRT_LoadedExecutable* loaded = compile(client, kAddMultiply, compileOptions("two_replicas_swapped.pb"));
  ASSERT_NE(loaded, nullptr);
  PJRT_LoadedExecutable_AddressableDevices_Args on{PJRT_LoadedExecutable_AddressableDevices_Args_STRUCT_SIZE, nullptr,
                                                   loaded};
  ASSERT_EQ(take(api_->PJRT_LoadedExecutable_AddressableDevices(&on)).second, "");
  ASSERT_EQ(on.num_addressable_devices, 2u);
  EXPECT_EQ(on.addressable_devices[0], second);
  EXPECT_EQ(on.addressable_devices[1], first);
  PJRT_Buffer* a = floats(client, second, {1, 1, 1});
  PJRT_Buffer* b = floats(client, first, {2, 2, 2});
  auto results = execute(loaded, {{a, a}, {b, b}}, 2);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(floatsOf(results[1][0]), (std::vector<float>{8, 8, 8}));
  EXPECT_EQ(deviceOf(results[0][0]), second);
  EXPECT_EQ(deviceOf(results[1][0]), first);
  for (auto& list : results)
    for (PJRT_Buffer* r : list) destroy(r);
  destroy(a);
  destroy(b);
  destroy(loaded);
  destroy(client);
}

TEST_P(PjrtPluginTest, PortableExecutablesRunWhereExecuteSays) {
  PJRT_Client* client = createClient(2);
  PJRT_Device* second = device(client, 1);
  PJRT_LoadedExecutable* loaded = compile(client, kAddMultiply, compileOptions("portable.pb"));
  ASSERT_NE(loaded, nullptr);
  PJRT_Buffer* x = floats(client, second, {1, 2, 3});
  auto results = execute(loaded, {{x, x}}, 2, second);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(deviceOf(results[0][0]), second);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{2, 8, 18}));
  for (PJRT_Buffer* r : results[0]) destroy(r);
  std::pair<PJRT_Error_Code, std::string> error;
  // Without execute_device it runs on the client's first device (as a deserialized one,
  // which does not know it was portable, must).
  execute(loaded, {{x, x}}, 2, nullptr, &error);
  EXPECT_EQ(error.first, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(error.second.find("argument 0 is on device 1, the execution on device 0"), std::string::npos)
      << error.second;
  destroy(x);
  destroy(loaded);
  destroy(client);
}

TEST_P(PjrtPluginTest, ProgramsAndExecutionsKilnCannotTakeAreErrors) {
  PJRT_Client* client = createClient(1);
  std::pair<PJRT_Error_Code, std::string> error;
  EXPECT_EQ(compile(client, kAddMultiply, "", &error, "hlo"), nullptr);
  EXPECT_EQ(error.first, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_NE(error.second.find("program format 'hlo'"), std::string::npos) << error.second;
  EXPECT_EQ(compile(client, std::string("ML\xefR\x00\x01", 6), "", &error), nullptr);  // cut short
  EXPECT_EQ(error.first, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(error.second.find("offset"), std::string::npos) << error.second;
  EXPECT_EQ(compile(client, "func.func @main() {\n  %0 = stablehlo.nonsense\n}", "", &error), nullptr);
  EXPECT_EQ(error.first, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(error.second.find("2:"), std::string::npos) << error.second;
  EXPECT_EQ(compile(client, kAddMultiply, "\x1a\x05", &error), nullptr);
  EXPECT_EQ(error.first, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(error.second.find("xla.CompileOptionsProto"), std::string::npos) << error.second;

  PJRT_LoadedExecutable* loaded = compile(client, kAddMultiply, "");
  PJRT_Buffer* x = floats(client, device(client, 0), {1, 2, 3});
  execute(loaded, {{x}}, 2, nullptr, &error);
  EXPECT_EQ(error.first, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(error.second.find("takes 2 argument(s), 1 given"), std::string::npos) << error.second;
  // A null row of arguments is an error, not a crash.
  PJRT_Buffer* const* noRow[1] = {nullptr};
  PJRT_Buffer* outputs[2] = {nullptr, nullptr};
  PJRT_Buffer** outputRows[1] = {outputs};
  PJRT_LoadedExecutable_Execute_Args nullRow{};
  nullRow.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
  nullRow.executable = loaded;
  nullRow.argument_lists = noRow;
  nullRow.num_devices = 1;
  nullRow.num_args = 2;
  nullRow.output_lists = outputRows;
  error = take(api_->PJRT_LoadedExecutable_Execute(&nullRow));
  EXPECT_EQ(error.first, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(error.second.find("argument_lists[0] is null"), std::string::npos) << error.second;
  PJRT_LoadedExecutable_Delete_Args remove{PJRT_LoadedExecutable_Delete_Args_STRUCT_SIZE, nullptr, loaded};
  ASSERT_EQ(take(api_->PJRT_LoadedExecutable_Delete(&remove)).second, "");
  execute(loaded, {{x, x}}, 2, nullptr, &error);
  EXPECT_EQ(error.first, PJRT_Error_Code_FAILED_PRECONDITION);
  destroy(x);
  destroy(loaded);
  destroy(client);
}

// What jaxlib sends: a portable artifact (MLIR bytecode), here jax.export's of
// tanh(x @ y) + 1 on f32[4,3] and f32[3,2] (tests/stablehlo/bytecode/dot_tanh.mlirbc).
TEST_P(PjrtPluginTest, CompilesPortableArtifacts) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/stablehlo/bytecode/dot_tanh.mlirbc", std::ios::binary);
  const std::string artifact{std::istreambuf_iterator<char>(in), {}};
  ASSERT_FALSE(artifact.empty());
  PJRT_Client* client = createClient(1);
  PJRT_LoadedExecutable* loaded = compile(client, artifact, "");
  ASSERT_NE(loaded, nullptr);
  const std::vector<float> ones(12, 1.0f), halves(6, 0.5f);
  PJRT_Buffer* x = fromHost(client, device(client, 0), ones.data(), PJRT_Buffer_Type_F32, {4, 3});
  PJRT_Buffer* y = fromHost(client, device(client, 0), halves.data(), PJRT_Buffer_Type_F32, {3, 2});
  std::vector<std::vector<PJRT_Buffer*>> out = execute(loaded, {{x, y}}, 1);
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> result = floatsOf(out[0][0]);
  ASSERT_EQ(result.size(), 8u);
  for (float v : result) EXPECT_NEAR(v, std::tanh(1.5f) + 1.0f, 1e-6f);
  destroy(out[0][0]);
  destroy(x);
  destroy(y);
  destroy(loaded);
  destroy(client);
}

// What JAX sends for a jit over two devices: the global program with its shardings,
// num_partitions 2 and use_spmd_partitioning. The plugin partitions it (each device
// squares its 2 rows and the column sums meet in an all_reduce) and reports, through
// PJRT's shardings extension, the shardings its parameters and results run with, as
// xla.OpSharding bytes: split by rows (type OTHER, tiles [2,1] on devices 0,1), and
// replicated (no bytes).
TEST_P(PjrtPluginTest, PartitionsASpmdProgramAndReportsItsShardings) {
  constexpr const char* kSharded = R"(
func.func @main(%x: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"})
    -> (tensor<4x2xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}, tensor<2xf32> {mhlo.sharding = "{replicated}"}) {
  %0 = stablehlo.multiply %x, %x : tensor<4x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x2xf32>, tensor<f32>) -> tensor<2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<2xf32>
})";
  kiln::runtime::proto::CompileOptions options;
  options.partitions = 2;
  options.spmd = true;
  PJRT_Client* client = createClient(2);
  PJRT_LoadedExecutable* loaded = compile(client, kSharded, kiln::runtime::proto::writeCompileOptions(options));
  ASSERT_NE(loaded, nullptr);
  const std::vector<float> top{1, 2, 3, 4}, bottom{5, 6, 7, 8};
  PJRT_Buffer* a = fromHost(client, device(client, 0), top.data(), PJRT_Buffer_Type_F32, {2, 2});
  PJRT_Buffer* b = fromHost(client, device(client, 1), bottom.data(), PJRT_Buffer_Type_F32, {2, 2});
  auto results = execute(loaded, {{a}, {b}}, 2);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ(floatsOf(results[1][0]), (std::vector<float>{25, 36, 49, 64}));
  EXPECT_EQ(floatsOf(results[0][1]), (std::vector<float>{16, 20}));
  EXPECT_EQ(floatsOf(results[1][1]), (std::vector<float>{16, 20}));

  const PJRT_Shardings_Extension* shardings = nullptr;
  for (const PJRT_Extension_Base* e = api_->extension_start; e; e = e->next) {
    int type;  // as the plugin stored it (the kiln extension's is no PJRT_Extension_Type)
    std::memcpy(&type, &e->type, sizeof type);
    if (type == PJRT_Extension_Type_Shardings) shardings = reinterpret_cast<const PJRT_Shardings_Extension*>(e);
  }
  ASSERT_NE(shardings, nullptr);
  PJRT_LoadedExecutable_GetExecutable_Args get{PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, nullptr, loaded,
                                               nullptr};
  ASSERT_EQ(take(api_->PJRT_LoadedExecutable_GetExecutable(&get)).second, "");
  auto bytesOf = [](const char* const* data, const size_t* sizes, size_t i) { return std::string(data[i], sizes[i]); };
  const std::string rows("\x08\x03\x1a\x02\x02\x01\x22\x02\x00\x01", 10);
  PJRT_Shardings_PJRT_Executable_ParameterShardings_Args params{
      PJRT_Shardings_PJRT_Executable_ParameterShardings_Args_STRUCT_SIZE, nullptr, get.executable, 0, nullptr, nullptr};
  ASSERT_EQ(take(shardings->PJRT_Shardings_PJRT_Executable_ParameterShardings(&params)).second, "");
  ASSERT_EQ(params.num_parameters, 1u);
  ASSERT_NE(params.shardings, nullptr);
  EXPECT_EQ(bytesOf(params.shardings, params.sharding_sizes, 0), rows);
  PJRT_Shardings_PJRT_Executable_OutputShardings_Args outs{
      PJRT_Shardings_PJRT_Executable_OutputShardings_Args_STRUCT_SIZE, nullptr, get.executable, 0, nullptr, nullptr};
  ASSERT_EQ(take(shardings->PJRT_Shardings_PJRT_Executable_OutputShardings(&outs)).second, "");
  ASSERT_EQ(outs.num_outputs, 2u);
  EXPECT_EQ(bytesOf(outs.shardings, outs.sharding_sizes, 0), rows);
  EXPECT_EQ(bytesOf(outs.shardings, outs.sharding_sizes, 1), "");
  PJRT_Executable_Destroy_Args destroyExecutable{PJRT_Executable_Destroy_Args_STRUCT_SIZE, nullptr, get.executable};
  ASSERT_EQ(take(api_->PJRT_Executable_Destroy(&destroyExecutable)).second, "");
  for (auto& list : results)
    for (PJRT_Buffer* buffer : list) destroy(buffer);
  destroy(a);
  destroy(b);
  destroy(loaded);
  destroy(client);
}

// A token parameter takes the PRED[0] buffer frameworks pass for it (as XLA does);
// another buffer is refused.
TEST_P(PjrtPluginTest, ATokenParameterTakesAnEmptyBoolBuffer) {
  constexpr const char* kToken = R"(
func.func @main(%x: tensor<3xf32>, %t: !stablehlo.token) -> (tensor<3xf32>, !stablehlo.token) {
  %0 = stablehlo.add %x, %x : tensor<3xf32>
  %1 = stablehlo.after_all %t : !stablehlo.token
  return %0, %1 : tensor<3xf32>, !stablehlo.token
})";
  PJRT_Client* client = createClient(1);
  PJRT_LoadedExecutable* loaded = compile(client, kToken, "");
  ASSERT_NE(loaded, nullptr);
  PJRT_Buffer* x = floats(client, device(client, 0), {1, 2, 3});
  const bool none[1] = {false};
  PJRT_Buffer* token = fromHost(client, device(client, 0), none, PJRT_Buffer_Type_PRED, {0});
  auto results = execute(loaded, {{x, token}}, 2);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{2, 4, 6}));
  std::pair<PJRT_Error_Code, std::string> error;
  execute(loaded, {{x, x}}, 2, nullptr, &error);
  EXPECT_EQ(error.first, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(error.second.find("parameter 1 of @main is !stablehlo.token"), std::string::npos) << error.second;
  for (PJRT_Buffer* b : results[0]) destroy(b);
  destroy(x);
  destroy(token);
  destroy(loaded);
  destroy(client);
}

// A buffer's address (PJRT_Buffer_UnsafePointer): its bytes in host memory, in place.
TEST_P(PjrtPluginTest, BuffersHaveAddresses) {
  PJRT_Client* client = createClient(1);
  PJRT_Buffer* x = floats(client, device(client, 0), {1, 2, 3});
  PJRT_Buffer_UnsafePointer_Args args{PJRT_Buffer_UnsafePointer_Args_STRUCT_SIZE, nullptr, x, 0};
  ASSERT_EQ(take(api_->PJRT_Buffer_UnsafePointer(&args)).second, "");
  ASSERT_NE(args.buffer_pointer, 0u);
  float values[3];
  std::memcpy(values, reinterpret_cast<const void*>(args.buffer_pointer), sizeof values);
  EXPECT_EQ(std::vector<float>(values, values + 3), (std::vector<float>{1, 2, 3}));
  PJRT_Buffer_Delete_Args remove{PJRT_Buffer_Delete_Args_STRUCT_SIZE, nullptr, x};
  ASSERT_EQ(take(api_->PJRT_Buffer_Delete(&remove)).second, "");
  EXPECT_EQ(take(api_->PJRT_Buffer_UnsafePointer(&args)).first, PJRT_Error_Code_FAILED_PRECONDITION);
  destroy(x);
  destroy(client);
}

// What a framework asks of a compiled program besides running it: its fingerprint, cost
// and memory analyses, the optimized program, its device assignment, and its bytes for a
// persistent cache, which load into a program that runs the same.
TEST_P(PjrtPluginTest, ExecutablesDescribeAndSerializeThemselves) {
  PJRT_Client* client = createClient(2);
  PJRT_LoadedExecutable* loaded = compile(client, kAddMultiply, compileOptions("two_replicas_swapped.pb"));
  ASSERT_NE(loaded, nullptr);
  PJRT_LoadedExecutable_GetExecutable_Args get{PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, nullptr, loaded};
  ASSERT_EQ(take(api_->PJRT_LoadedExecutable_GetExecutable(&get)).second, "");
  PJRT_Executable* executable = get.executable;

  PJRT_Executable_Fingerprint_Args print{PJRT_Executable_Fingerprint_Args_STRUCT_SIZE, nullptr, executable};
  ASSERT_EQ(take(api_->PJRT_Executable_Fingerprint(&print)).second, "");
  const std::string fingerprint(print.executable_fingerprint, print.executable_fingerprint_size);
  EXPECT_EQ(fingerprint.size(), 32u);

  PJRT_Executable_GetCostAnalysis_Args cost{PJRT_Executable_GetCostAnalysis_Args_STRUCT_SIZE, nullptr, executable};
  ASSERT_EQ(take(api_->PJRT_Executable_GetCostAnalysis(&cost)).second, "");
  ASSERT_EQ(cost.num_properties, 2u);
  EXPECT_EQ(std::string(cost.properties[0].name, cost.properties[0].name_size), "flops");
  EXPECT_GT(cost.properties[0].float_value, 0);

  PJRT_Executable_GetCompiledMemoryStats_Args memory{};
  memory.struct_size = PJRT_Executable_GetCompiledMemoryStats_Args_STRUCT_SIZE;
  memory.executable = executable;
  ASSERT_EQ(take(api_->PJRT_Executable_GetCompiledMemoryStats(&memory)).second, "");
  EXPECT_EQ(memory.argument_size_in_bytes, 24);
  EXPECT_EQ(memory.output_size_in_bytes, 24);

  PJRT_Program optimized{};
  optimized.struct_size = PJRT_Program_STRUCT_SIZE;
  PJRT_Executable_OptimizedProgram_Args text{PJRT_Executable_OptimizedProgram_Args_STRUCT_SIZE, nullptr, executable,
                                             &optimized};
  ASSERT_EQ(take(api_->PJRT_Executable_OptimizedProgram(&text)).second, "");
  std::string code(optimized.code_size, '\0');
  optimized.code = code.data();
  ASSERT_EQ(take(api_->PJRT_Executable_OptimizedProgram(&text)).second, "");
  EXPECT_EQ(std::string(optimized.format, optimized.format_size), "mlir");
  EXPECT_NE(code.find("func.func @main"), std::string::npos) << code;

  // The assignment as jaxlib wrote it: replica 0 on device 1, replica 1 on device 0.
  PJRT_LoadedExecutable_GetDeviceAssignment_Args assignment{};
  assignment.struct_size = PJRT_LoadedExecutable_GetDeviceAssignment_Args_STRUCT_SIZE;
  assignment.executable = loaded;
  ASSERT_EQ(take(api_->PJRT_LoadedExecutable_GetDeviceAssignment(&assignment)).second, "");
  EXPECT_EQ(std::string(assignment.serialized_bytes, assignment.serialized_bytes_size),
            std::string("\x08\x02\x10\x01\x1a\x04\x0a\x02\x01\x00", 10));
  assignment.serialized_device_assignment_deleter(assignment.serialized_device_assignment);

  PJRT_Executable_Serialize_Args serialize{};
  serialize.struct_size = PJRT_Executable_Serialize_Args_STRUCT_SIZE;
  serialize.executable = executable;
  ASSERT_EQ(take(api_->PJRT_Executable_Serialize(&serialize)).second, "");
  PJRT_Executable_DeserializeAndLoad_Args load{};
  load.struct_size = PJRT_Executable_DeserializeAndLoad_Args_STRUCT_SIZE;
  load.client = client;
  load.serialized_executable = serialize.serialized_bytes;
  load.serialized_executable_size = serialize.serialized_bytes_size;
  ASSERT_EQ(take(api_->PJRT_Executable_DeserializeAndLoad(&load)).second, "");
  PJRT_Buffer* one = floats(client, device(client, 1), {1, 2, 3});
  PJRT_Buffer* other = floats(client, device(client, 0), {1, 1, 1});
  auto results = execute(load.loaded_executable, {{one, one}, {other, other}}, 2);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{2, 8, 18}));
  EXPECT_EQ(deviceOf(results[1][0]), device(client, 0));
  for (auto& list : results)
    for (PJRT_Buffer* r : list) destroy(r);
  destroy(load.loaded_executable);
  // The options it was compiled with may come again; others that place it elsewhere are refused.
  const std::string sameOptions = compileOptions("two_replicas_swapped.pb");
  const std::string otherOptions = compileOptions("default.pb");
  load.overridden_serialized_compile_options = sameOptions.data();
  load.overridden_serialized_compile_options_size = sameOptions.size();
  ASSERT_EQ(take(api_->PJRT_Executable_DeserializeAndLoad(&load)).second, "");
  destroy(load.loaded_executable);
  load.overridden_serialized_compile_options = otherOptions.data();
  load.overridden_serialized_compile_options_size = otherOptions.size();
  EXPECT_EQ(take(api_->PJRT_Executable_DeserializeAndLoad(&load)).first, PJRT_Error_Code_UNIMPLEMENTED);
  load.overridden_serialized_compile_options_size = 0;
  serialize.serialized_executable_deleter(serialize.serialized_executable);
  // Damaged bytes are an error, not a crash.
  load.serialized_executable = "kiln";
  load.serialized_executable_size = 4;
  load.loaded_executable = nullptr;
  EXPECT_NE(take(api_->PJRT_Executable_DeserializeAndLoad(&load)).first, PJRT_Error_Code_OK);

  PJRT_Executable_Destroy_Args drop{PJRT_Executable_Destroy_Args_STRUCT_SIZE, nullptr, executable};
  ASSERT_EQ(take(api_->PJRT_Executable_Destroy(&drop)).second, "");
  destroy(one);
  destroy(other);
  destroy(loaded);
  destroy(client);
}

// Donation as JAX asks for it: the program marks the parameter (jit(donate_argnums=...)),
// each execution may keep some of them, and a donated buffer is deleted for its caller
// while the output takes over its memory.
TEST_P(PjrtPluginTest, ProgramsMarkWhatExecutionsTakeOver) {
  PJRT_Client* client = createClient(1);
  PJRT_Device* only = device(client, 0);
  const char* program = R"(
func.func @main(%x: tensor<3xf32> {jax.buffer_donor = true}, %y: tensor<3xf32>) -> tensor<3xf32> {
  %s = stablehlo.add %x, %y : tensor<3xf32>
  return %s : tensor<3xf32>
})";
  PJRT_LoadedExecutable* loaded = compile(client, program, "");
  ASSERT_NE(loaded, nullptr);
  auto isDeleted = [&](PJRT_Buffer* b) {
    PJRT_Buffer_IsDeleted_Args args{PJRT_Buffer_IsDeleted_Args_STRUCT_SIZE, nullptr, b};
    EXPECT_EQ(take(api_->PJRT_Buffer_IsDeleted(&args)).second, "");
    return args.is_deleted;
  };
  PJRT_Buffer* x = floats(client, only, {1, 2, 3});
  PJRT_Buffer* y = floats(client, only, {1, 1, 1});
  // Kept this time.
  auto kept = execute(loaded, {{x, y}}, 1, nullptr, nullptr, {0});
  EXPECT_FALSE(isDeleted(x));
  EXPECT_EQ(floatsOf(kept[0][0]), (std::vector<float>{2, 3, 4}));
  destroy(kept[0][0]);
  // Donated: x is gone, y is not, and the result lives in x's memory.
  auto results = execute(loaded, {{x, y}}, 1);
  EXPECT_TRUE(isDeleted(x));
  EXPECT_FALSE(isDeleted(y));
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{2, 3, 4}));
  PJRT_Device_MemoryStats_Args stats{};
  stats.struct_size = PJRT_Device_MemoryStats_Args_STRUCT_SIZE;
  stats.device = only;
  ASSERT_EQ(take(api_->PJRT_Device_MemoryStats(&stats)).second, "");
  EXPECT_EQ(stats.bytes_in_use, 24);  // y and the result
  std::pair<PJRT_Error_Code, std::string> error;
  execute(loaded, {{x, y}}, 1, nullptr, &error);
  EXPECT_EQ(error.first, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_NE(error.second.find("donated"), std::string::npos) << error.second;
  for (PJRT_Buffer* b : {x, y, results[0][0]}) destroy(b);
  destroy(loaded);
  destroy(client);
}

INSTANTIATE_TEST_SUITE_P(Plugins, PjrtPluginTest, kiln_test::kPlugins,
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
