// Bad input and misuse through both plugins: each is an error with a message, never a
// crash. Through the C++ client (kiln::Error) and through PJRT's raw table (error
// objects: null args, a struct_size of 0, a struct_size that stops early).
#include <cstddef>
#include <cstring>

#include "runtime/named_values.h"
#include "runtime_test_util.h"

namespace kiln::runtime::testing {
namespace {

class ErrorsTest : public ::testing::TestWithParam<const char*> {
 protected:
  Plugin plugin_ = Plugin::load(GetParam());
  Client client_{plugin_};
  Device device_ = client_.devices()[0];
};

// An error in the program's text has its position, and is about the program (Parse),
// not about how the host called (Usage), though both cross the C API as INVALID_ARGUMENT;
// printed, it is the plugin's diagnostic as it is, not wrapped in a second "error: ".
TEST_P(ErrorsTest, ParseErrorHasItsPosition) {
  CompileOptions options;
  options.name = "broken.mlir";
  try {
    client_.compile("func.func @main() -> tensor<f32> {\n  return %nope : tensor<f32>\n}", options);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Parse) << e.what();
    EXPECT_EQ(e.format().rfind("broken.mlir:2:10: error: use of undefined value %nope\n", 0), 0u) << e.format();
  }
}

TEST_P(ErrorsTest, MoreProcessesThanDevices) {
  CompileOptions options;
  options.replicas = 2;
  expectError([&] { client_.compile(kAddOne, options); }, ErrorKind::Usage,
              "2 replicas x 1 partitions need 2 devices; the client has 1");
}

TEST_P(ErrorsTest, WrongArgumentsAtExecute) {
  Executable exe = client_.compile(kAddOne);
  Buffer good = client_.bufferFromHost(f32({4}, {1, 2, 3, 4}), device_);
  Buffer shape = client_.bufferFromHost(f32({2}, {1, 2}), device_);
  Literal ints(Type::tensor(DType::I32, {4}));
  Buffer dtype = client_.bufferFromHost(ints, device_);
  expectError([&] { exe.execute({}, device_); }, ErrorKind::Usage, "takes 1 argument(s), 0 given");
  expectError([&] { exe.execute({&good, &good}, device_); }, ErrorKind::Usage, "takes 1 argument(s), 2 given");
  expectError([&] { exe.execute({&shape}, device_); }, ErrorKind::Usage, "argument 0 is tensor<2xf32>");
  expectError([&] { exe.execute({&dtype}, device_); }, ErrorKind::Usage, "argument 0 is tensor<4xi32>");
  expectError([&] { exe.execute({nullptr}, device_); }, ErrorKind::Usage, "argument_lists[0][0] is null");
  good.remove();
  expectError([&] { exe.execute({&good}, device_); }, ErrorKind::Usage, "the buffer was deleted");
  expectError([&] { good.toLiteral(); }, ErrorKind::Usage, "was deleted");
}

TEST_P(ErrorsTest, DeserializingForeignOrDamagedBytes) {
  const char* other = std::string(GetParam()) == "cpu" ? "interp" : "cpu";
  Client otherClient(Plugin::load(other));
  std::string foreign = otherClient.compile(kAddOne).serialize();
  EXPECT_THROW(client_.deserialize(foreign), Error);
  EXPECT_THROW(client_.deserialize("garbage bytes"), Error);
  EXPECT_THROW(client_.deserialize(""), Error);
  std::string own = client_.compile(kAddOne).serialize();
  EXPECT_THROW(client_.deserialize(own.substr(0, own.size() / 2)), Error);
}

namespace {
template <class Args>
PJRT_Error* callWith(PJRT_Error* (*fn)(Args*), bool null) {
  Args zero{};
  return fn(null ? nullptr : &zero);
}
template <class Args>
PJRT_Error* callWith(void (*fn)(Args*), bool null) {  // (Error_Destroy, Error_Message)
  Args zero{};
  fn(null ? nullptr : &zero);
  return nullptr;
}
}  // namespace

// Every entry of PJRT's table with no args, and with args of struct_size 0: an error
// object naming the entry (the two that return none do nothing).
TEST_P(ErrorsTest, NullArgsAndStructSizeZeroAreErrorObjects) {
  const PJRT_Api& api = plugin_.api();
  int checked = 0;
  // (An entry kiln does not implement answers UNIMPLEMENTED, naming itself, whatever it is given.)
  auto expectRefused = [&](const std::string& fn, PJRT_Error* error, const std::string& why) {
    try {
      plugin_.check(error);
      ADD_FAILURE() << fn << ": no error";
    } catch (const Error& e) {
      const std::string message = e.what();
      if (e.kind() == ErrorKind::Unsupported) EXPECT_EQ(message.rfind("unsupported: " + fn + " ", 0), 0u) << message;
      else EXPECT_EQ(message, fn + ": " + why) << message;
    }
  };
#define KILN_EXPECT_ARGS_CHECKED(fn)                                                                            \
  if (#fn != std::string("PJRT_Error_Destroy") && #fn != std::string("PJRT_Error_Message")) {                   \
    expectRefused(#fn, callWith(api.fn, true), "the args pointer is null");                                    \
    expectRefused(#fn, callWith(api.fn, false), "struct_size is 0 (set it to the size of the args struct)");  \
    ++checked;                                                                                                  \
  } else {                                                                                                      \
    EXPECT_EQ(callWith(api.fn, true), nullptr);                                                                 \
    EXPECT_EQ(callWith(api.fn, false), nullptr);                                                                \
  }
  KILN_PJRT_API_FUNCTIONS(KILN_EXPECT_ARGS_CHECKED)
#undef KILN_EXPECT_ARGS_CHECKED
  EXPECT_EQ(checked, 136);
}

TEST_P(ErrorsTest, NullHandlesAreErrorObjects) {
  PJRT_Buffer_ToHostBuffer_Args toHost{};
  expectError([&] { plugin_.call(&PJRT_Api::PJRT_Buffer_ToHostBuffer, toHost, "PJRT_Buffer_ToHostBuffer"); },
              ErrorKind::Usage, "PJRT_Buffer_ToHostBuffer: src is null");
  PJRT_LoadedExecutable_Execute_Args execute{};
  expectError([&] { plugin_.call(&PJRT_Api::PJRT_LoadedExecutable_Execute, execute, "PJRT_LoadedExecutable_Execute"); },
              ErrorKind::Usage, "PJRT_LoadedExecutable_Execute: executable is null");
  PJRT_Event_Await_Args await{};
  expectError([&] { plugin_.call(&PJRT_Api::PJRT_Event_Await, await, "PJRT_Event_Await"); }, ErrorKind::Usage,
              "PJRT_Event_Await: event is null");
}

TEST_P(ErrorsTest, AShorterStructReadsAndWritesOnlyItsFields) {
  // A client built against an older header: its args for a device's kind end before
  // device_kind_size, an output.
  struct {
    PJRT_DeviceDescription_Kind_Args args;
    char guard[8];
  } old;
  std::memset(&old, 0x5a, sizeof old);
  PJRT_Device_GetDescription_Args get{};
  get.device = device_.handle();
  plugin_.call(&PJRT_Api::PJRT_Device_GetDescription, get, "PJRT_Device_GetDescription");
  old.args.struct_size = offsetof(PJRT_DeviceDescription_Kind_Args, device_kind) + sizeof(old.args.device_kind);
  old.args.extension_start = nullptr;
  old.args.device_description = get.device_description;
  plugin_.check(plugin_.api().PJRT_DeviceDescription_Kind(&old.args));
  EXPECT_EQ(std::string(old.args.device_kind, std::strlen(GetParam())), GetParam());
  // Nothing past its struct_size was written.
  const auto* bytes = reinterpret_cast<const unsigned char*>(&old.args);
  for (size_t i = old.args.struct_size; i < sizeof old; ++i) ASSERT_EQ(bytes[i], 0x5a) << "byte " << i;
  // A struct too short to hold an output handle is refused (the handle would be lost).
  PJRT_Client_Create_Args create{};
  create.struct_size = offsetof(PJRT_Client_Create_Args, client);
  PJRT_Error* e = plugin_.api().PJRT_Client_Create(&create);
  expectError([&] { plugin_.check(e); }, ErrorKind::Usage, "leaves out the output field 'client'");
}

TEST_P(ErrorsTest, MemoryLimitIsResourceExhausted) {
  Client small(plugin_, ClientOptions{1, 64});
  Device d = small.devices()[0];
  Literal big(Type::tensor(DType::F32, {32}));  // 128 bytes
  expectError([&] { small.bufferFromHost(big, d); }, ErrorKind::ResourceExhausted, "out of device memory");
  EXPECT_EQ(d.memoryStats().numBuffers, 0);
}

// Client options: unknown names and bad values are INVALID_ARGUMENT errors that say what
// the plugin knows; the mpi communicator gives a process one device.
TEST_P(ErrorsTest, BadClientOptions) {
  auto create = [&](std::vector<std::pair<const char*, const char*>> options, int64_t devices = 0) {
    std::vector<PJRT_NamedValue> named;
    for (const auto& [name, value] : options) {
      PJRT_NamedValue v{};
      v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
      v.name = name;
      v.name_size = name ? std::strlen(name) : 0;
      v.type = PJRT_NamedValue_kString;
      v.string_value = value;
      v.value_size = value ? std::strlen(value) : 1;
      named.push_back(v);
    }
    if (devices > 0) named.push_back(int64Value("num_devices", devices));
    PJRT_Client_Create_Args args{};
    args.struct_size = sizeof args;
    args.create_options = named.data();
    args.num_options = named.size();
    PJRT_Error* e = plugin_.api().PJRT_Client_Create(&args);
    if (!e) {
      PJRT_Client_Destroy_Args destroy{};
      destroy.struct_size = sizeof destroy;
      destroy.client = args.client;
      plugin_.check(plugin_.api().PJRT_Client_Destroy(&destroy));
    }
    plugin_.check(e);
  };
  expectError([&] { create({{"colour", "red"}}); }, ErrorKind::Usage, "unknown client option 'colour'");
  expectError([&] { create({{"communicator", "pigeon"}}); }, ErrorKind::Usage, "communicator is 'pigeon' (in_process or mpi)");
  expectError([&] { create({{"collective_timeout_s", "-1"}}); }, ErrorKind::Usage, "not a positive number of seconds");
  expectError([&] { create({{"inline_execution", "always"}}); }, ErrorKind::Usage,
              "inline_execution is 'always' (small or never)");
  expectError([&] { create({{"infeed_when_empty", "block"}}); }, ErrorKind::Usage,
              "infeed_when_empty is 'block' (wait or fail)");
  expectError([&] { create({{"communicator", nullptr}}); }, ErrorKind::Usage, "has a null string");
  expectError([&] { create({{"communicator", "mpi"}}, 2); }, ErrorKind::Usage,
              "under the mpi communicator each process has one device");
  // In process, as without options.
  EXPECT_NO_THROW(create({{"communicator", "in_process"}}, 2));
}

INSTANTIATE_TEST_SUITE_P(Plugins, ErrorsTest, ::testing::ValuesIn(kPlugins));

}  // namespace
}  // namespace kiln::runtime::testing
