// What the tests of kiln's plugins through PJRT's C API share: a fixture that opens a
// plugin (cpu or interp) through GetPjrtApi, and helpers that drive it as a client does,
// checking every call.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "kiln/pjrt/c_api.h"
#include "runtime/named_values.h"

namespace kiln_test {

inline std::string compileOptions(const std::string& name) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/runtime/compile_options/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Plugin {
  const char* name;
  const char* path;
};

inline void PrintTo(const Plugin& p, std::ostream* os) { *os << p.name; }

class PjrtTest : public ::testing::TestWithParam<Plugin> {
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
    const PJRT_NamedValue option = kiln::runtime::int64Value("num_devices", devices);
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


  // A buffer of `type` and `dims` from `data` on `device` (the client's first by default),
  // and the event that says the host bytes may be reused.
  PJRT_Buffer* fromHost(PJRT_Client* client, PJRT_Device* device, const void* data, PJRT_Buffer_Type type,
                        std::vector<int64_t> dims, const std::vector<int64_t>& strides = {},
                        PJRT_HostBufferSemantics semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes) {
    PJRT_Client_BufferFromHostBuffer_Args args{};
    args.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
    args.client = client;
    args.data = data;
    args.type = type;
    args.dims = dims.data();
    args.num_dims = dims.size();
    args.byte_strides = strides.data();
    args.num_byte_strides = strides.size();
    args.host_buffer_semantics = semantics;
    args.device = device ? device : this->device(client, 0);
    EXPECT_EQ(take(api_->PJRT_Client_BufferFromHostBuffer(&args)).second, "");
    await(args.done_with_host_buffer);
    return args.buffer;
  }

  // Awaits and destroys the event; its error's message, "" for none.
  std::string await(PJRT_Event* event) const {
    PJRT_Event_Await_Args wait{PJRT_Event_Await_Args_STRUCT_SIZE, nullptr, event};
    std::string message = take(api_->PJRT_Event_Await(&wait)).second;
    PJRT_Event_Destroy_Args destroy{PJRT_Event_Destroy_Args_STRUCT_SIZE, nullptr, event};
    EXPECT_EQ(take(api_->PJRT_Event_Destroy(&destroy)).second, "");
    return message;
  }

  std::vector<uint8_t> toHost(PJRT_Buffer* buffer) const {
    PJRT_Buffer_ToHostBuffer_Args size{};
    size.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
    size.src = buffer;
    EXPECT_EQ(take(api_->PJRT_Buffer_ToHostBuffer(&size)).second, "");
    std::vector<uint8_t> bytes(size.dst_size);
    if (bytes.empty()) return bytes;  // a null dst asks for the size
    PJRT_Buffer_ToHostBuffer_Args copy = size;
    copy.dst = bytes.data();
    EXPECT_EQ(take(api_->PJRT_Buffer_ToHostBuffer(&copy)).second, "");
    EXPECT_EQ(await(copy.event), "");
    return bytes;
  }

  void destroy(PJRT_Buffer* buffer) const {
    PJRT_Buffer_Destroy_Args args{PJRT_Buffer_Destroy_Args_STRUCT_SIZE, nullptr, buffer};
    EXPECT_EQ(take(api_->PJRT_Buffer_Destroy(&args)).second, "");
  }

  PJRT_Device* device(PJRT_Client* client, size_t i) const {
    PJRT_Client_Devices_Args devices{PJRT_Client_Devices_Args_STRUCT_SIZE, nullptr, client};
    EXPECT_EQ(take(api_->PJRT_Client_Devices(&devices)).second, "");
    return devices.devices[i];
  }

  // Compiles MLIR text with serialized compile options; null on failure, with `error`
  // (code and message) set.
  PJRT_LoadedExecutable* compile(PJRT_Client* client, const std::string& text, const std::string& options,
                                 std::pair<PJRT_Error_Code, std::string>* error = nullptr,
                                 const char* format = "mlir") const {
    PJRT_Program program{};
    program.struct_size = PJRT_Program_STRUCT_SIZE;
    program.code = const_cast<char*>(text.data());
    program.code_size = text.size();
    program.format = format;
    program.format_size = std::strlen(format);
    PJRT_Client_Compile_Args args{};
    args.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
    args.client = client;
    args.program = &program;
    args.compile_options = options.data();
    args.compile_options_size = options.size();
    auto result = take(api_->PJRT_Client_Compile(&args));
    if (error) *error = result;
    else EXPECT_EQ(result.second, "");
    return args.executable;
  }

  // Runs `executable` with one argument list per device; the outputs per device, once
  // each device's completion event says it finished.
  std::vector<std::vector<PJRT_Buffer*>> execute(PJRT_LoadedExecutable* executable,
                                                 const std::vector<std::vector<PJRT_Buffer*>>& arguments,
                                                 size_t numOutputs, PJRT_Device* on = nullptr,
                                                 std::pair<PJRT_Error_Code, std::string>* error = nullptr,
                                                 const std::vector<int64_t>& keep = {}) const {
    std::vector<PJRT_Buffer* const*> lists;
    for (const auto& list : arguments) lists.push_back(list.data());
    std::vector<std::vector<PJRT_Buffer*>> outputs(arguments.size(), std::vector<PJRT_Buffer*>(numOutputs));
    std::vector<PJRT_Buffer**> outputLists;
    for (auto& list : outputs) outputLists.push_back(list.data());
    std::vector<PJRT_Event*> done(arguments.size());
    PJRT_ExecuteOptions options{};
    options.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
    options.non_donatable_input_indices = keep.data();
    options.num_non_donatable_input_indices = keep.size();
    PJRT_LoadedExecutable_Execute_Args args{};
    args.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
    args.executable = executable;
    args.options = &options;
    args.argument_lists = lists.data();
    args.num_devices = arguments.size();
    args.num_args = arguments.empty() ? 0 : arguments[0].size();
    args.output_lists = outputLists.data();
    args.device_complete_events = done.data();
    args.execute_device = on;
    auto result = take(api_->PJRT_LoadedExecutable_Execute(&args));
    if (error) *error = result;
    else EXPECT_EQ(result.second, "");
    if (!result.second.empty()) return {};
    for (PJRT_Event* event : done) EXPECT_EQ(await(event), "");
    return outputs;
  }

  PJRT_Buffer* floats(PJRT_Client* client, PJRT_Device* on, const std::vector<float>& values) {
    return fromHost(client, on, values.data(), PJRT_Buffer_Type_F32, {static_cast<int64_t>(values.size())});
  }

  std::vector<float> floatsOf(PJRT_Buffer* buffer) const {
    std::vector<uint8_t> bytes = toHost(buffer);
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }

  PJRT_Device* deviceOf(PJRT_Buffer* buffer) const {
    PJRT_Buffer_Device_Args args{PJRT_Buffer_Device_Args_STRUCT_SIZE, nullptr, buffer};
    EXPECT_EQ(take(api_->PJRT_Buffer_Device(&args)).second, "");
    return args.device;
  }

  void destroy(PJRT_LoadedExecutable* executable) const {
    PJRT_LoadedExecutable_Destroy_Args args{PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE, nullptr, executable};
    EXPECT_EQ(take(api_->PJRT_LoadedExecutable_Destroy(&args)).second, "");
  }

  void* handle_ = nullptr;
  const PJRT_Api* api_ = nullptr;
};

// Both of kiln's plugins, as the tests' parameters.
inline const auto kPlugins = ::testing::Values(Plugin{"cpu", KILN_CPU_PLUGIN}, Plugin{"interp", KILN_INTERP_PLUGIN});

}  // namespace kiln_test
