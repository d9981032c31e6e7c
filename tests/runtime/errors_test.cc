// Bad input and misuse through both plugins: each is an error with a message, never a
// crash. Through the C++ wrapper (kiln::Error) and through the raw table (error objects:
// null args, a struct_size of 0, a struct_size that stops early).
#include <cstddef>
#include <cstring>

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
  expectError([&] { exe.execute({nullptr}, device_); }, ErrorKind::Usage, "argument 0 is null");
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

TEST_P(ErrorsTest, NullArgsAndStructSizeZeroAreErrorObjects) {
  const KilnPluginApi& api = plugin_.api();
  // Every function of the table, with no args and with args of struct_size 0.
#define KILN_EXPECT_ARGS_CHECKED(fn, Args)                                                        \
  {                                                                                               \
    expectError([&] { plugin_.check(api.fn(nullptr)); }, ErrorKind::Usage, #fn ": the args pointer is null"); \
    Args zero{};                                                                                  \
    expectError([&] { plugin_.check(api.fn(&zero)); }, ErrorKind::Usage, #fn ": struct_size is 0"); \
  }
  KILN_EXPECT_ARGS_CHECKED(error_destroy, KilnErrorDestroyArgs)
  KILN_EXPECT_ARGS_CHECKED(error_info, KilnErrorInfoArgs)
  KILN_EXPECT_ARGS_CHECKED(plugin_attributes, KilnPluginAttributesArgs)
  KILN_EXPECT_ARGS_CHECKED(client_create, KilnClientCreateArgs)
  KILN_EXPECT_ARGS_CHECKED(client_destroy, KilnClientDestroyArgs)
  KILN_EXPECT_ARGS_CHECKED(client_devices, KilnClientDevicesArgs)
  KILN_EXPECT_ARGS_CHECKED(device_info, KilnDeviceInfoArgs)
  KILN_EXPECT_ARGS_CHECKED(memory_info, KilnMemoryInfoArgs)
  KILN_EXPECT_ARGS_CHECKED(device_memory_stats, KilnDeviceMemoryStatsArgs)
  KILN_EXPECT_ARGS_CHECKED(buffer_from_host, KilnBufferFromHostArgs)
  KILN_EXPECT_ARGS_CHECKED(buffer_to_host, KilnBufferToHostArgs)
  KILN_EXPECT_ARGS_CHECKED(buffer_info, KilnBufferInfoArgs)
  KILN_EXPECT_ARGS_CHECKED(buffer_ready_event, KilnBufferReadyEventArgs)
  KILN_EXPECT_ARGS_CHECKED(buffer_delete, KilnBufferDeleteArgs)
  KILN_EXPECT_ARGS_CHECKED(buffer_destroy, KilnBufferDestroyArgs)
  KILN_EXPECT_ARGS_CHECKED(buffer_copy_to_device, KilnBufferCopyToDeviceArgs)
  KILN_EXPECT_ARGS_CHECKED(compile, KilnCompileArgs)
  KILN_EXPECT_ARGS_CHECKED(executable_destroy, KilnExecutableDestroyArgs)
  KILN_EXPECT_ARGS_CHECKED(executable_info, KilnExecutableInfoArgs)
  KILN_EXPECT_ARGS_CHECKED(executable_value_type, KilnExecutableValueTypeArgs)
  KILN_EXPECT_ARGS_CHECKED(executable_serialize, KilnExecutableSerializeArgs)
  KILN_EXPECT_ARGS_CHECKED(executable_deserialize, KilnExecutableDeserializeArgs)
  KILN_EXPECT_ARGS_CHECKED(execute, KilnExecuteArgs)
  KILN_EXPECT_ARGS_CHECKED(event_destroy, KilnEventDestroyArgs)
  KILN_EXPECT_ARGS_CHECKED(event_is_ready, KilnEventIsReadyArgs)
  KILN_EXPECT_ARGS_CHECKED(event_await, KilnEventAwaitArgs)
  KILN_EXPECT_ARGS_CHECKED(event_on_ready, KilnEventOnReadyArgs)
  KILN_EXPECT_ARGS_CHECKED(executable_with_entry, KilnExecutableWithEntryArgs)
  KILN_EXPECT_ARGS_CHECKED(executable_statistics, KilnExecutableStatisticsArgs)
#undef KILN_EXPECT_ARGS_CHECKED
}

TEST_P(ErrorsTest, NullHandlesAreErrorObjects) {
  KilnBufferToHostArgs toHost{};
  expectError([&] { plugin_.call(&KilnPluginApi::buffer_to_host, toHost, "buffer_to_host"); }, ErrorKind::Usage,
              "buffer_to_host: buffer is null");
  KilnExecuteArgs execute{};
  expectError([&] { plugin_.call(&KilnPluginApi::execute, execute, "execute"); }, ErrorKind::Usage,
              "execute: executable is null");
  KilnEventAwaitArgs await{};
  expectError([&] { plugin_.call(&KilnPluginApi::event_await, await, "event_await"); }, ErrorKind::Usage,
              "event_await: event is null");
}

TEST_P(ErrorsTest, AShorterStructReadsAndWritesOnlyItsFields) {
  // A host built against an older header: its device_info args end after `kind`.
  struct {
    KilnDeviceInfoArgs args;
    char guard[8];
  } old;
  std::memset(&old, 0x5a, sizeof old);
  old.args.struct_size = offsetof(KilnDeviceInfoArgs, kind) + sizeof(old.args.kind);
  old.args.device = device_.handle();
  plugin_.check(plugin_.api().device_info(&old.args));
  EXPECT_EQ(old.args.global_id, 0);
  EXPECT_STREQ(old.args.kind, GetParam());
  // Nothing past its struct_size was written.
  const auto* bytes = reinterpret_cast<const unsigned char*>(&old.args);
  for (size_t i = old.args.struct_size; i < sizeof old; ++i) ASSERT_EQ(bytes[i], 0x5a) << "byte " << i;
  // A struct too short to hold an output handle is refused (the handle would be lost).
  KilnClientCreateArgs create{};
  create.struct_size = offsetof(KilnClientCreateArgs, client);
  KilnError* e = plugin_.api().client_create(&create);
  expectError([&] { plugin_.check(e); }, ErrorKind::Usage, "leaves out the output field 'client'");
}

TEST_P(ErrorsTest, MemoryLimitIsResourceExhausted) {
  Client small(plugin_, ClientOptions{1, 64});
  Device d = small.devices()[0];
  Literal big(Type::tensor(DType::F32, {32}));  // 128 bytes
  expectError([&] { small.bufferFromHost(big, d); }, ErrorKind::ResourceExhausted, "out of device memory");
  EXPECT_EQ(d.memoryStats().numBuffers, 0);
}

// Client options (API 0.6): unknown names and bad values are INVALID_ARGUMENT errors that
// say what the plugin knows; the mpi communicator gives a process one device.
TEST_P(ErrorsTest, BadClientOptions) {
  auto create = [&](std::vector<KilnNamedOption> options, int32_t devices = 0) {
    KilnClientCreateArgs args{};
    args.struct_size = sizeof args;
    args.num_devices = devices;
    args.options = options.data();
    args.num_options = options.size();
    KilnError* e = plugin_.api().client_create(&args);
    if (!e) {
      KilnClientDestroyArgs destroy{};
      destroy.struct_size = sizeof destroy;
      destroy.client = args.client;
      plugin_.check(plugin_.api().client_destroy(&destroy));
    }
    plugin_.check(e);
  };
  expectError([&] { create({{"colour", "red"}}); }, ErrorKind::Usage,
              "unknown client option 'colour' (this plugin knows: communicator, collective_timeout_s, inline_execution, infeed_when_empty)");
  expectError([&] { create({{"communicator", "pigeon"}}); }, ErrorKind::Usage, "communicator is 'pigeon' (in_process or mpi)");
  expectError([&] { create({{"collective_timeout_s", "-1"}}); }, ErrorKind::Usage, "not a positive number of seconds");
  expectError([&] { create({{"inline_execution", "always"}}); }, ErrorKind::Usage,
              "inline_execution is 'always' (small or never)");
  expectError([&] { create({{"infeed_when_empty", "block"}}); }, ErrorKind::Usage,
              "infeed_when_empty is 'block' (wait or fail)");
  expectError([&] { create({{"communicator", nullptr}}); }, ErrorKind::Usage, "has a null name or value");
  expectError([&] { create({{"communicator", "mpi"}}, 2); }, ErrorKind::Usage,
              "under the mpi communicator each process has one device");
  // In process, as without options.
  EXPECT_NO_THROW(create({{"communicator", "in_process"}}, 2));
}

INSTANTIATE_TEST_SUITE_P(Plugins, ErrorsTest, ::testing::ValuesIn(kPlugins));

}  // namespace
}  // namespace kiln::runtime::testing
