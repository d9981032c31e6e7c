// The plugin conformance kit (plugin_check.h): the checks of PJRT's core table. Each check
// owns what it creates (destroyed through the table when it ends, last first); a failed
// call is a Fail with the plugin's own message.
#include "testing/plugin_check.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "interp/interpreter.h"
#include "runtime/compile_options_proto.h"
#include "runtime/pjrt_loader.h"
#include "stablehlo/parser.h"
#include "testing/plugin_kit.h"

namespace kiln::testing {
namespace {

constexpr const char* kElementwise = R"(func.func @main(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %s = stablehlo.add %x, %y : tensor<8xf32>
  %p = stablehlo.multiply %s, %x : tensor<8xf32>
  %e = stablehlo.exponential %y : tensor<8xf32>
  %r = stablehlo.subtract %p, %e : tensor<8xf32>
  return %r : tensor<8xf32>
})";

constexpr const char* kDot = R"(func.func @main(%a: tensor<4x3xf32>, %b: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %d : tensor<4x2xf32>
})";

constexpr const char* kReduce = R"(func.func @main(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
})";

constexpr const char* kIntegers = R"(func.func @main(%x: tensor<8xi32>, %y: tensor<8xi32>) -> tensor<8xi32> {
  %m = stablehlo.multiply %x, %y : tensor<8xi32>
  %c = stablehlo.compare GT, %x, %y : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
  %s = stablehlo.select %c, %m, %y : tensor<8xi1>, tensor<8xi32>
  return %s : tensor<8xi32>
})";

constexpr const char* kSumOfTwo = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sum = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %sum : tensor<4xf32>
})";

constexpr const char* kDonor = R"(func.func @main(%x: tensor<8xf32> {jax.buffer_donor = true}) -> tensor<8xf32> {
  %y = stablehlo.add %x, %x : tensor<8xf32>
  return %y : tensor<8xf32>
})";

void checkTable(PjrtKit& kit) {
  kit.check("the table: PJRT C API version and every entry inside its struct_size", [&] {
    const PJRT_Api& api = kit.api();
    require(api.pjrt_api_version.major_version == PJRT_API_MAJOR,
            "major version " + std::to_string(api.pjrt_api_version.major_version));
    std::string missing;
#define KILN_PJRT_CHECK_ENTRY(name)                                                                             \
  if (reinterpret_cast<const char*>(&api.name) - reinterpret_cast<const char*>(&api) + sizeof(void*) <=        \
          api.struct_size &&                                                                                    \
      !api.name)                                                                                                \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
    KILN_PJRT_API_FUNCTIONS(KILN_PJRT_CHECK_ENTRY)
#undef KILN_PJRT_CHECK_ENTRY
    require(missing.empty(), "NULL entries inside the table's struct_size (clients call them unchecked): " + missing);
  });
  kit.check("plugin attributes", [&] {
    PJRT_Plugin_Attributes_Args a{};
    a.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE;
    kit.ok(kit.api().PJRT_Plugin_Attributes(&a), "PJRT_Plugin_Attributes");
    for (size_t i = 0; i < a.num_attributes; ++i) require(a.attributes[i].name, "an attribute without a name");
  });
}

void checkClient(PjrtKit& kit) {
  kit.check("a client, its devices and their memories", [&] {
    PJRT_Client* client = kit.client();
    for (PJRT_Device* device : kit.devices(client)) {
      PJRT_Device_GetDescription_Args d{PJRT_Device_GetDescription_Args_STRUCT_SIZE, nullptr, device};
      kit.ok(kit.api().PJRT_Device_GetDescription(&d), "PJRT_Device_GetDescription");
      PJRT_DeviceDescription_Kind_Args kind{PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE, nullptr,
                                            d.device_description};
      kit.ok(kit.api().PJRT_DeviceDescription_Kind(&kind), "PJRT_DeviceDescription_Kind");
      require(kind.device_kind_size > 0, "a device without a kind");
      PJRT_Device_DefaultMemory_Args memory{PJRT_Device_DefaultMemory_Args_STRUCT_SIZE, nullptr, device};
      kit.ok(kit.api().PJRT_Device_DefaultMemory(&memory), "PJRT_Device_DefaultMemory");
      PJRT_Memory_AddressableByDevices_Args by{PJRT_Memory_AddressableByDevices_Args_STRUCT_SIZE, nullptr,
                                               memory.memory};
      kit.ok(kit.api().PJRT_Memory_AddressableByDevices(&by), "PJRT_Memory_AddressableByDevices");
      bool listed = false;
      for (size_t i = 0; i < by.num_devices; ++i) listed |= by.devices[i] == device;
      require(listed, "a device's default memory does not list the device");
    }
  });
}

void checkBuffers(PjrtKit& kit) {
  const std::pair<PJRT_Buffer_Type, DType> types[] = {
      {PJRT_Buffer_Type_PRED, DType::I1}, {PJRT_Buffer_Type_S8, DType::I8},     {PJRT_Buffer_Type_S32, DType::I32},
      {PJRT_Buffer_Type_S64, DType::I64}, {PJRT_Buffer_Type_U8, DType::U8},     {PJRT_Buffer_Type_U32, DType::U32},
      {PJRT_Buffer_Type_F16, DType::F16}, {PJRT_Buffer_Type_BF16, DType::BF16}, {PJRT_Buffer_Type_F32, DType::F32},
      {PJRT_Buffer_Type_F64, DType::F64}, {PJRT_Buffer_Type_C64, DType::C64}};
  for (const auto& [type, dtype] : types)
    kit.check(std::string("a buffer of ") + std::string(name(dtype)) + " in and out", [&, type = type, dtype = dtype] {
      PJRT_Client* client = kit.client();
      const Type t = Type::tensor(dtype, {2, 3});
      const std::vector<uint8_t> bytes = valuesOf(t, 7);
      PJRT_Buffer* buffer = kit.upload(client, kit.devices(client)[0], type, {2, 3}, bytes);
      PJRT_Buffer_ElementType_Args element{PJRT_Buffer_ElementType_Args_STRUCT_SIZE, nullptr, buffer};
      kit.ok(kit.api().PJRT_Buffer_ElementType(&element), "PJRT_Buffer_ElementType");
      require(element.type == type, "the buffer says element type " + std::to_string(element.type));
      PJRT_Buffer_Dimensions_Args dims{PJRT_Buffer_Dimensions_Args_STRUCT_SIZE, nullptr, buffer};
      kit.ok(kit.api().PJRT_Buffer_Dimensions(&dims), "PJRT_Buffer_Dimensions");
      require(dims.num_dims == 2 && dims.dims[0] == 2 && dims.dims[1] == 3, "the buffer's dimensions are not [2, 3]");
      require(kit.download(buffer) == bytes, "the bytes that came back differ");
    });
}

// Compiles `text`, runs it on inputs of its parameters' types, and compares with what
// kiln's interpreter computes (floats within a relative 1e-5: plugins may round
// transcendentals and sums differently).
void checkProgram(PjrtKit& kit, const std::string& what, const char* text) {
  kit.check("compile and run " + what + ", against kiln's interpreter", [&] {
    auto module = stablehlo::parseModule(std::string(text));
    const Function& main = *module->lookup("main");
    PJRT_Client* client = kit.client();
    PJRT_Device* device = kit.devices(client)[0];
    PJRT_LoadedExecutable* executable = kit.compile(client, text);
    interp::HostValues args;
    std::vector<PJRT_Buffer*> buffers;
    for (size_t i = 0; i < main.numParams(); ++i) {
      const Type& t = main.param(i)->type();
      std::vector<uint8_t> bytes = valuesOf(t, static_cast<uint32_t>(11 + i));
      args.push_back(Literal::fromStorage(t, bytes));
      const PJRT_Buffer_Type type = t.dtype() == DType::F32 ? PJRT_Buffer_Type_F32 : PJRT_Buffer_Type_S32;
      buffers.push_back(kit.upload(client, device, type, std::vector<int64_t>(t.shape().begin(), t.shape().end()),
                                   bytes));
    }
    const interp::HostValues expected = interp::Interpreter(*module).call("main", args);
    const std::vector<PJRT_Buffer*> outputs = kit.execute(executable, buffers, expected.size());
    for (size_t r = 0; r < expected.size(); ++r) {
      const Literal& want = expected[r].tensor();
      const Literal got = Literal::fromStorage(want.type(), kit.download(outputs[r]));
      for (int64_t i = 0; i < want.numElements(); ++i) {
        const bool same = isFloat(want.dtype())
                              ? std::abs(got.floatAt(i) - want.floatAt(i)) <= 1e-5 * std::max(1.0, std::abs(want.floatAt(i)))
                              : got.intAt(i) == want.intAt(i);
        require(same, "result " + std::to_string(r) + " element " + std::to_string(i) + " is " +
                          (isFloat(want.dtype()) ? std::to_string(got.floatAt(i)) : std::to_string(got.intAt(i))) +
                          ", the interpreter says " +
                          (isFloat(want.dtype()) ? std::to_string(want.floatAt(i)) : std::to_string(want.intAt(i))));
      }
    }
  });
}

void checkThreads(PjrtKit& kit) {
  kit.check("executions and their events from four threads at once", [&] {
    PJRT_Client* client = kit.client();
    PJRT_Device* device = kit.devices(client)[0];
    PJRT_LoadedExecutable* executable = kit.compile(client, kDonor);  // x + x (donation aside)
    std::atomic<int> wrong{0};
    // Shared with the callbacks, which may run after this check has ended (a failed one).
    auto callbacks = std::make_shared<std::atomic<int>>(0);
    std::vector<std::thread> threads;
    std::vector<uint8_t> bytes(8 * sizeof(float));
    for (int i = 0; i < 8; ++i) {
      const float v = static_cast<float>(i);
      std::memcpy(bytes.data() + i * sizeof(float), &v, sizeof v);
    }
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int round = 0; round < 10; ++round) {
          PJRT_Buffer* in = nullptr;
          PJRT_Event* copied = nullptr;
          if (kit.startUpload(client, device, PJRT_Buffer_Type_F32, {8}, bytes,
                              PJRT_HostBufferSemantics_kImmutableOnlyDuringCall, in, copied)
                  .code != PJRT_Error_Code_OK) {
            ++wrong;
            continue;
          }
          PJRT_Event_Destroy_Args drop{PJRT_Event_Destroy_Args_STRUCT_SIZE, nullptr, copied};
          kit.outcomeOf(kit.api().PJRT_Event_Destroy(&drop));
          std::vector<PJRT_Buffer*> outs(1);
          PJRT_Event* done = nullptr;
          // Kept from donation: the input stays this thread's to destroy.
          if (kit.startExecute(executable, {in}, outs, done, {0}).code == PJRT_Error_Code_OK) {
            PJRT_Buffer* out = outs[0];
            struct Counter {
              std::shared_ptr<std::atomic<int>> count;
              const PJRT_Api* api;
            };
            PJRT_Event_OnReady_Args on{PJRT_Event_OnReady_Args_STRUCT_SIZE, nullptr, done,
                                       [](PJRT_Error* error, void* user) {
                                         std::unique_ptr<Counter> counter(static_cast<Counter*>(user));
                                         if (error) runtime::takeError(*counter->api, error);  // it owns the error
                                         else ++*counter->count;
                                       },
                                       new Counter{callbacks, &kit.api()}};
            if (kit.outcomeOf(kit.api().PJRT_Event_OnReady(&on)).code != PJRT_Error_Code_OK) {
              delete static_cast<Counter*>(on.user_arg);
              ++wrong;
            }
            try {
              kit.await(done, "an execution");
              std::vector<uint8_t> back = kit.download(out);
              float third;
              std::memcpy(&third, back.data() + 3 * sizeof(float), sizeof third);
              if (third != 6) ++wrong;
            } catch (const Fail&) {
              ++wrong;
            }
            PJRT_Buffer_Destroy_Args d{PJRT_Buffer_Destroy_Args_STRUCT_SIZE, nullptr, out};
            kit.outcomeOf(kit.api().PJRT_Buffer_Destroy(&d));
          } else {
            ++wrong;
          }
          PJRT_Buffer_Destroy_Args d{PJRT_Buffer_Destroy_Args_STRUCT_SIZE, nullptr, in};
          kit.outcomeOf(kit.api().PJRT_Buffer_Destroy(&d));
        }
      });
    for (auto& t : threads) t.join();
    // A callback may still be running on the thread that completed its event when the
    // event's awaiter has gone on: give them a few seconds.
    for (int waited = 0; *callbacks < 40 && waited < 5000; waited += 10)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    require(wrong == 0, std::to_string(wrong.load()) + " of 40 executions failed or computed a wrong value");
    require(*callbacks == 40, std::to_string(callbacks->load()) + " of 40 on-ready callbacks were called");
  });
}

void checkSerialization(PjrtKit& kit) {
  kit.check("serialize, and a deserialized executable runs", [&] {
    PJRT_Client* client = kit.client();
    PJRT_Device* device = kit.devices(client)[0];
    PJRT_LoadedExecutable* loaded = kit.compile(client, kElementwise);
    PJRT_LoadedExecutable_GetExecutable_Args get{PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, nullptr, loaded,
                                                 nullptr};
    kit.ok(kit.api().PJRT_LoadedExecutable_GetExecutable(&get), "PJRT_LoadedExecutable_GetExecutable");
    PJRT_Executable_Serialize_Args serialize{};
    serialize.struct_size = PJRT_Executable_Serialize_Args_STRUCT_SIZE;
    serialize.executable = get.executable;
    const PjrtKit::Outcome o = kit.outcomeOf(kit.api().PJRT_Executable_Serialize(&serialize));
    PJRT_Executable_Destroy_Args drop{PJRT_Executable_Destroy_Args_STRUCT_SIZE, nullptr, get.executable};
    kit.outcomeOf(kit.api().PJRT_Executable_Destroy(&drop));
    if (o.code == PJRT_Error_Code_UNIMPLEMENTED) throw Skip{"serialization is optional: " + o.message};
    require(o.code == PJRT_Error_Code_OK, "PJRT_Executable_Serialize failed: " + o.message);
    const std::string bytes(serialize.serialized_bytes, serialize.serialized_bytes_size);
    if (serialize.serialized_executable_deleter) serialize.serialized_executable_deleter(serialize.serialized_executable);
    PJRT_Executable_DeserializeAndLoad_Args load{};
    load.struct_size = PJRT_Executable_DeserializeAndLoad_Args_STRUCT_SIZE;
    load.client = client;
    load.serialized_executable = bytes.data();
    load.serialized_executable_size = bytes.size();
    kit.ok(kit.api().PJRT_Executable_DeserializeAndLoad(&load), "PJRT_Executable_DeserializeAndLoad");
    PJRT_LoadedExecutable_Destroy_Args dropLoaded{PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE, nullptr,
                                                  load.loaded_executable};
    const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8}, y = {0, 0, 0, 0, 0, 0, 0, 0};
    std::vector<float> first, second;
    try {
      first = kit.floatsOf(kit.execute(loaded, {kit.floats(client, device, x), kit.floats(client, device, y)}, 1)[0]);
      second = kit.floatsOf(
          kit.execute(load.loaded_executable, {kit.floats(client, device, x), kit.floats(client, device, y)}, 1)[0]);
    } catch (...) {
      kit.outcomeOf(kit.api().PJRT_LoadedExecutable_Destroy(&dropLoaded));
      throw;
    }
    kit.outcomeOf(kit.api().PJRT_LoadedExecutable_Destroy(&dropLoaded));
    require(first == second, "the deserialized executable computes other values");
  });
}

void checkReplicas(PjrtKit& kit) {
  kit.check("two replicas on the devices the compile options assign, summing through all_reduce", [&] {
    // The plugin's default client, or (kiln's plugins) one asked for two devices.
    PJRT_Client* client = kit.client();
    if (kit.devices(client).size() < 2) client = kit.client(2);
    const std::vector<PJRT_Device*> devices = kit.devices(client);
    if (devices.size() < 2) throw Skip{"the client has one device"};
    std::vector<int32_t> ids;
    for (PJRT_Device* device : {devices[1], devices[0]}) {  // the second device runs replica 0
      PJRT_Device_GetDescription_Args d{PJRT_Device_GetDescription_Args_STRUCT_SIZE, nullptr, device, nullptr};
      kit.ok(kit.api().PJRT_Device_GetDescription(&d), "PJRT_Device_GetDescription");
      PJRT_DeviceDescription_Id_Args id{PJRT_DeviceDescription_Id_Args_STRUCT_SIZE, nullptr, d.device_description, 0};
      kit.ok(kit.api().PJRT_DeviceDescription_Id(&id), "PJRT_DeviceDescription_Id");
      ids.push_back(id.id);
    }
    runtime::proto::CompileOptions options;
    options.replicas = 2;
    options.devices = ids;
    PJRT_LoadedExecutable* executable = kit.compile(client, kSumOfTwo, runtime::proto::writeCompileOptions(options));
    std::vector<std::vector<PJRT_Buffer*>> outputs = {{nullptr}, {nullptr}};
    std::vector<PJRT_Event*> done(2, nullptr);
    const PjrtKit::Outcome o = kit.startExecuteOn(
        executable, {{kit.floats(client, devices[1], {1, 2, 3, 4})}, {kit.floats(client, devices[0], {10, 20, 30, 40})}},
        outputs, done);
    require(o.code == PJRT_Error_Code_OK, "PJRT_LoadedExecutable_Execute failed: " + o.message);
    for (size_t r = 0; r < 2; ++r) {
      kit.own(outputs[r][0]);
      kit.await(done[r], "replica " + std::to_string(r));
      require(kit.floatsOf(outputs[r][0]) == std::vector<float>({11, 22, 33, 44}),
              "replica " + std::to_string(r) + " did not sum both");
      PJRT_Buffer_Device_Args where{PJRT_Buffer_Device_Args_STRUCT_SIZE, nullptr, outputs[r][0], nullptr};
      kit.ok(kit.api().PJRT_Buffer_Device(&where), "PJRT_Buffer_Device");
      require(where.device == devices[1 - r], "replica " + std::to_string(r) + "'s output is not on its device");
    }
  });
}

void checkDonation(PjrtKit& kit) {
  kit.check("donation (a parameter marked jax.buffer_donor)", [&] {
    PJRT_Client* client = kit.client();
    PJRT_Device* device = kit.devices(client)[0];
    PJRT_LoadedExecutable* executable = kit.compile(client, kDonor);
    std::vector<uint8_t> bytes(8 * sizeof(float), 0);
    PJRT_Buffer* x = kit.upload(client, device, PJRT_Buffer_Type_F32, {8}, bytes);
    kit.execute(executable, {x}, 1);
    PJRT_Buffer_IsDeleted_Args deleted{PJRT_Buffer_IsDeleted_Args_STRUCT_SIZE, nullptr, x};
    kit.ok(kit.api().PJRT_Buffer_IsDeleted(&deleted), "PJRT_Buffer_IsDeleted");
    if (!deleted.is_deleted) throw Skip{"the plugin kept the donated buffer (donation is optional)"};
  });
}

// A handle used or destroyed again after its destroy: an error object, not a read of
// freed memory (near the end: a plugin that crashes ends the kit here).
void checkDestroyedHandles(PjrtKit& kit) {
  kit.check("destroyed handles and a second destroy are answered with error objects", [&] {
    const PJRT_Api& api = kit.api();
    auto expectError = [&](PJRT_Error* error, const std::string& what) {
      const PjrtKit::Outcome o = kit.outcomeOf(error);
      require(o.code != PJRT_Error_Code_OK, what + ": no error");
    };
    PJRT_Client* client = kit.client();
    PJRT_Device* device = kit.devices(client)[0];
    PJRT_Buffer* buffer = nullptr;
    PJRT_Event* copied = nullptr;
    const std::vector<uint8_t> bytes(8 * sizeof(float), 0);
    const PjrtKit::Outcome upload = kit.startUpload(client, device, PJRT_Buffer_Type_F32, {8}, bytes,
                                                    PJRT_HostBufferSemantics_kImmutableOnlyDuringCall, buffer, copied);
    require(upload.code == PJRT_Error_Code_OK, "PJRT_Client_BufferFromHostBuffer failed: " + upload.message);
    kit.await(copied, "the copy to the device");
    // An event: destroyed, then asked and destroyed again.
    PJRT_Buffer_ReadyEvent_Args ready{PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE, nullptr, buffer, nullptr};
    kit.ok(api.PJRT_Buffer_ReadyEvent(&ready), "PJRT_Buffer_ReadyEvent");
    PJRT_Event_Destroy_Args dropEvent{PJRT_Event_Destroy_Args_STRUCT_SIZE, nullptr, ready.event};
    kit.ok(api.PJRT_Event_Destroy(&dropEvent), "PJRT_Event_Destroy");
    PJRT_Event_IsReady_Args isReady{PJRT_Event_IsReady_Args_STRUCT_SIZE, nullptr, ready.event, false};
    expectError(api.PJRT_Event_IsReady(&isReady), "PJRT_Event_IsReady of a destroyed event");
    expectError(api.PJRT_Event_Destroy(&dropEvent), "a second PJRT_Event_Destroy");
    // A buffer.
    PJRT_Buffer_Destroy_Args dropBuffer{PJRT_Buffer_Destroy_Args_STRUCT_SIZE, nullptr, buffer};
    kit.ok(api.PJRT_Buffer_Destroy(&dropBuffer), "PJRT_Buffer_Destroy");
    PJRT_Buffer_ElementType_Args element{PJRT_Buffer_ElementType_Args_STRUCT_SIZE, nullptr, buffer, PJRT_Buffer_Type_INVALID};
    expectError(api.PJRT_Buffer_ElementType(&element), "PJRT_Buffer_ElementType of a destroyed buffer");
    expectError(api.PJRT_Buffer_Destroy(&dropBuffer), "a second PJRT_Buffer_Destroy");
    // A loaded executable.
    PJRT_LoadedExecutable* executable = kit.compile(client, kElementwise, "", /*owned=*/false);
    PJRT_LoadedExecutable_Destroy_Args dropExecutable{PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE, nullptr,
                                                      executable};
    kit.ok(api.PJRT_LoadedExecutable_Destroy(&dropExecutable), "PJRT_LoadedExecutable_Destroy");
    PJRT_LoadedExecutable_GetExecutable_Args get{PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, nullptr,
                                                 executable, nullptr};
    expectError(api.PJRT_LoadedExecutable_GetExecutable(&get), "PJRT_LoadedExecutable_GetExecutable of a destroyed one");
    expectError(api.PJRT_LoadedExecutable_Destroy(&dropExecutable), "a second PJRT_LoadedExecutable_Destroy");
  });
}

// Last: a plugin that crashes on misuse ends the kit here.
void checkMisuse(PjrtKit& kit) {
  kit.check("misuse is answered with error objects (null args, short struct sizes, null handles)", [&] {
    const PJRT_Api& api = kit.api();
    auto expectError = [&](PJRT_Error* error, const std::string& what) {
      const PjrtKit::Outcome o = kit.outcomeOf(error);
      require(o.code != PJRT_Error_Code_OK, what + ": no error");
      require(!o.message.empty(), what + ": an error without a message");
    };
    expectError(api.PJRT_Client_Devices(nullptr), "PJRT_Client_Devices(NULL)");
    PJRT_Client_Devices_Args zero{};
    expectError(api.PJRT_Client_Devices(&zero), "PJRT_Client_Devices with struct_size 0");
    PJRT_Buffer_ToHostBuffer_Args toHost{};
    toHost.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
    expectError(api.PJRT_Buffer_ToHostBuffer(&toHost), "PJRT_Buffer_ToHostBuffer with a null src");
    PJRT_Client_Compile_Args compile{};
    compile.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
    expectError(api.PJRT_Client_Compile(&compile), "PJRT_Client_Compile with a null client");
    // A struct that ends before an output the call must hand back (it would be lost).
    PJRT_Client_Create_Args create{};
    create.struct_size = offsetof(PJRT_Client_Create_Args, client);
    expectError(api.PJRT_Client_Create(&create), "PJRT_Client_Create with a struct_size that leaves out the client");
    PJRT_Error_Destroy_Args none{PJRT_Error_Destroy_Args_STRUCT_SIZE, nullptr, nullptr};
    api.PJRT_Error_Destroy(&none);  // like free(NULL)
  });
}

}  // namespace

PluginCheckSummary checkPlugin(const std::string& nameOrPath, std::ostream& out, double hangSeconds) {
  kit::installCrashHandlers();  // before loading: the loader calls into the plugin too
  const runtime::PjrtPlugin& plugin = runtime::loadPjrtPlugin(nameOrPath);
  kit::startWatchdog(hangSeconds);
  out << "plugin-check: " << plugin.path << ": PJRT C API " << plugin.api->pjrt_api_version.major_version << "."
      << plugin.minor << " (kiln knows " << PJRT_API_MAJOR << "." << PJRT_API_MINOR << ")\n";
  for (const auto& [key, value] : plugin.attributes) out << "  attribute " << key << " = " << value << "\n";
  PjrtKit kit(plugin, out);
  checkTable(kit);
  checkClient(kit);
  checkBuffers(kit);
  checkProgram(kit, "an elementwise program", kElementwise);
  checkProgram(kit, "a dot_general", kDot);
  checkProgram(kit, "a reduction", kReduce);
  checkProgram(kit, "integer arithmetic and select", kIntegers);
  checkThreads(kit);
  checkSerialization(kit);
  checkReplicas(kit);
  checkDonation(kit);
  checkKilnExtension(kit);
  checkDestroyedHandles(kit);
  checkMisuse(kit);
  return kit.summary();
}

}  // namespace kiln::testing
