// The conformance kit's checks (plugin_check.h), run through a Kit (plugin_kit.h).
#include "testing/plugin_check.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "testing/plugin_kit.h"

namespace kiln::testing {
namespace {

using namespace plugin_kit;

// ---- programs ----

constexpr const char* kAddOne = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %y = stablehlo.add %x, %one : tensor<4xf32>
  return %y : tensor<4xf32>
}
)";

constexpr const char* kBadText = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.no_such_op %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
)";

// sin applied n times: long enough to cancel, or to queue work behind.
constexpr const char* kLoop = R"(func.func @main(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %y = %x) : tensor<i64>, tensor<4xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i64>
    %s = stablehlo.sine %y : tensor<4xf32>
    stablehlo.return %next, %s : tensor<i64>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
)";

constexpr const char* kSumOfTwo = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sum = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %sum : tensor<4xf32>
}
)";

// Two processes running different functions, meeting through send/recv with tokens.
constexpr const char* kSendRecv = R"(func.func @producer(%x: tensor<4xf32>, %t: !stablehlo.token) -> !stablehlo.token {
  %done = "stablehlo.send"(%x, %t) {
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true
  } : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  return %done : !stablehlo.token
}
func.func @consumer(%t: !stablehlo.token) -> (tensor<4xf32>, !stablehlo.token) {
  %v, %done = "stablehlo.recv"(%t) {
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true
  } : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  return %v, %done : tensor<4xf32>, !stablehlo.token
}
)";

// One module, two entries: x + 1 (@main) and x + x.
constexpr const char* kTwoEntries = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %y = stablehlo.add %x, %one : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
)";

// Takes an f32[4] from the device's infeed, outfeeds it + 1 and returns it + 1.
constexpr const char* kFeeds = R"(func.func @main() -> tensor<4xf32> {
  %t = stablehlo.after_all : !stablehlo.token
  %x:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %y = stablehlo.add %x#0, %one : tensor<4xf32>
  %done = "stablehlo.outfeed"(%y, %x#1) : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  return %y : tensor<4xf32>
}
)";

const std::vector<float> kFour = {1, 2, 3, 4};


// ---- the checks ----

// Every function of the table, called through `each(member pointer, name)`.
template <class F>
void forEachFunction(F&& each) {
  each(&KilnPluginApi::error_destroy, "error_destroy");
  each(&KilnPluginApi::error_info, "error_info");
  each(&KilnPluginApi::plugin_attributes, "plugin_attributes");
  each(&KilnPluginApi::client_create, "client_create");
  each(&KilnPluginApi::client_destroy, "client_destroy");
  each(&KilnPluginApi::client_devices, "client_devices");
  each(&KilnPluginApi::device_info, "device_info");
  each(&KilnPluginApi::memory_info, "memory_info");
  each(&KilnPluginApi::device_memory_stats, "device_memory_stats");
  each(&KilnPluginApi::buffer_from_host, "buffer_from_host");
  each(&KilnPluginApi::buffer_to_host, "buffer_to_host");
  each(&KilnPluginApi::buffer_info, "buffer_info");
  each(&KilnPluginApi::buffer_ready_event, "buffer_ready_event");
  each(&KilnPluginApi::buffer_delete, "buffer_delete");
  each(&KilnPluginApi::buffer_destroy, "buffer_destroy");
  each(&KilnPluginApi::buffer_copy_to_device, "buffer_copy_to_device");
  each(&KilnPluginApi::compile, "compile");
  each(&KilnPluginApi::executable_destroy, "executable_destroy");
  each(&KilnPluginApi::executable_info, "executable_info");
  each(&KilnPluginApi::executable_value_type, "executable_value_type");
  each(&KilnPluginApi::executable_serialize, "executable_serialize");
  each(&KilnPluginApi::executable_deserialize, "executable_deserialize");
  each(&KilnPluginApi::execute, "execute");
  each(&KilnPluginApi::event_destroy, "event_destroy");
  each(&KilnPluginApi::event_is_ready, "event_is_ready");
  each(&KilnPluginApi::event_await, "event_await");
  each(&KilnPluginApi::event_on_ready, "event_on_ready");
  each(&KilnPluginApi::execution_cancel, "execution_cancel");
  each(&KilnPluginApi::executable_with_entry, "executable_with_entry");
  each(&KilnPluginApi::executable_statistics, "executable_statistics");
  each(&KilnPluginApi::executable_text, "executable_text");
  each(&KilnPluginApi::device_infeed, "device_infeed");
  each(&KilnPluginApi::device_outfeed, "device_outfeed");
}

// The functions every plugin has (API 0.1): a missing one fails the table check.
constexpr size_t kCoreFunctions = 27;

void checkTable(Kit& kit) {
  kit.check("the table: version and functions", [&] {
    const KilnPluginApi& api = kit.api();
    require(api.major_version == KILN_PLUGIN_API_MAJOR, "major version " + std::to_string(api.major_version));
    size_t index = 0;
    std::string missing;
    forEachFunction([&](auto fn, const char* name) {
      if (!kit.hasFunction(fn) && index < kCoreFunctions) missing += std::string(missing.empty() ? "" : ", ") + name;
      ++index;
    });
    require(missing.empty(), "the table lacks " + missing);
  });
  kit.check("plugin_attributes: name, version, capabilities", [&] {
    KilnPluginAttributesArgs a{};
    kit.expectOk(&KilnPluginApi::plugin_attributes, a, "plugin_attributes");
    require(a.name && *a.name, "no name");
    require(a.version && *a.version, "no version");
    if (kit.api().minor_version >= 4)
      for (size_t i = 0; i < a.num_capabilities; ++i) require(a.capabilities && a.capabilities[i], "a null capability name");
  });
}

// The args struct of a table member: A for KilnError* (*KilnPluginApi::*)(A*).
template <class Member>
struct FunctionArgs;
template <class A>
struct FunctionArgs<KilnError* (*KilnPluginApi::*)(A*)> {
  using type = A;
};

// Calls `fn` with an args struct of zeros (struct_size 0).
template <class Args>
KilnError* callZeroed(const KilnPluginApi& api, KilnError* (*KilnPluginApi::*fn)(Args*)) {
  Args a;
  std::memset(&a, 0, sizeof a);
  return (api.*fn)(&a);
}

void checkArgsDiscipline(Kit& kit) {
  kit.check("null args: every function returns an error object", [&] {
    forEachFunction([&](auto fn, const char* name) {
      if (kit.hasFunction(fn))
        kit.expectError(kit.outcomeOf((kit.api().*fn)(nullptr)), KILN_ERROR_INVALID_ARGUMENT, std::string(name) + "(NULL)");
    });
  });
  kit.check("struct_size 0: every function returns an error object", [&] {
    forEachFunction([&](auto fn, const char* name) {
      if (kit.hasFunction(fn))
        kit.expectError(kit.outcomeOf(callZeroed(kit.api(), fn)), KILN_ERROR_INVALID_ARGUMENT,
                        std::string(name) + " with struct_size 0");
    });
  });
  kit.check("null handles are error objects", [&] {
    // Args of zeros but their size: every handle in them null.
    auto withNulls = [&](auto fn, const char* what) {
      typename FunctionArgs<decltype(fn)>::type a{};
      kit.expectError(fn, a, KILN_ERROR_INVALID_ARGUMENT, what);
    };
    withNulls(&KilnPluginApi::client_devices, "client_devices(client NULL)");
    withNulls(&KilnPluginApi::device_info, "device_info(device NULL)");
    withNulls(&KilnPluginApi::buffer_info, "buffer_info(buffer NULL)");
    withNulls(&KilnPluginApi::buffer_destroy, "buffer_destroy(buffer NULL)");
    withNulls(&KilnPluginApi::executable_info, "executable_info(executable NULL)");
    withNulls(&KilnPluginApi::event_await, "event_await(event NULL)");
    KilnCompileArgs compile{};
    compile.code = kAddOne;
    compile.code_size = std::strlen(kAddOne);
    kit.expectError(&KilnPluginApi::compile, compile, KILN_ERROR_INVALID_ARGUMENT, "compile(client NULL)");
    KilnErrorDestroyArgs none{};
    kit.expectOk(&KilnPluginApi::error_destroy, none, "error_destroy(error NULL)");  // like free(NULL)
  });
  kit.check("a struct_size that leaves out an output is an error", [&] {
    KilnClient* c = kit.client();
    KilnCompileArgs a{};
    a.client = c;
    a.code = kAddOne;
    a.code_size = std::strlen(kAddOne);
    a.struct_size = offsetof(KilnCompileArgs, executable);
    kit.expectError(kit.outcomeOf(kit.api().compile(&a)), KILN_ERROR_INVALID_ARGUMENT,
                    "compile with a struct_size short of 'executable'");
  });
}

void checkClientsAndDevices(Kit& kit, const std::set<std::string>& caps) {
  kit.check("clients, devices and their memories", [&] {
    KilnClient* c = kit.client();
    std::set<int32_t> ids;
    for (KilnDevice* d : kit.devices(c)) {
      KilnDeviceInfoArgs info{};
      info.device = d;
      kit.expectOk(&KilnPluginApi::device_info, info, "device_info");
      require(ids.insert(info.global_id).second, "two devices have id " + std::to_string(info.global_id));
      require(info.kind && *info.kind && info.description && *info.description, "a device without kind or description");
      require(info.memory != nullptr, "device " + std::to_string(info.global_id) + " has no memory");
      KilnMemoryInfoArgs memory{};
      memory.memory = info.memory;
      kit.expectOk(&KilnPluginApi::memory_info, memory, "memory_info");
      require(memory.device == d, "the memory of device " + std::to_string(info.global_id) + " names another device");
      require(memory.kind && *memory.kind, "a memory without kind");
    }
  });
  kit.check("client_create(num_devices = 2): two devices, or an error", [&] {
    KilnClientCreateArgs a{};
    a.num_devices = 2;
    Kit::Outcome o = kit.call(&KilnPluginApi::client_create, a);
    if (o.code != 0) throw Skip{std::string("the plugin has no second device: ") + codeName(o.code) + ": " + o.message};
    KilnClientDestroyArgs destroy{};
    destroy.client = a.client;
    std::vector<KilnDevice*> ds = kit.devices(a.client);
    kit.expectOk(&KilnPluginApi::client_destroy, destroy, "client_destroy");
    require(ds.size() == 2, "it gave " + std::to_string(ds.size()) + " devices");
  });
  kit.check("device_memory_stats count buffers", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnDeviceMemoryStatsArgs before{};
    before.device = d;
    Kit::Outcome o = kit.call(&KilnPluginApi::device_memory_stats, before);
    if (!caps.count(KILN_CAPABILITY_MEMORY_STATS)) {
      kit.expectError(o, KILN_ERROR_UNIMPLEMENTED, "device_memory_stats without the capability");
      throw Skip{"not a listed capability (answers UNIMPLEMENTED, as it should)"};
    }
    require(o.code == 0, std::string("device_memory_stats failed: ") + o.message);
    kit.floats(c, d, kFour);
    KilnDeviceMemoryStatsArgs after{};
    after.device = d;
    kit.expectOk(&KilnPluginApi::device_memory_stats, after, "device_memory_stats");
    require(after.num_buffers == before.num_buffers + 1, "a new buffer did not count");
    require(after.bytes_in_use >= before.bytes_in_use + 16, "a new buffer's 16 bytes did not count");
    require(after.peak_bytes_in_use >= after.bytes_in_use, "the peak is below the bytes in use");
  });
}

void checkBuffers(Kit& kit) {
  kit.check("buffers of every dtype round-trip bit for bit", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    for (int t = KILN_DTYPE_PRED; t <= KILN_DTYPE_C128; ++t) {
      const auto dtype = static_cast<KilnDType>(t);
      std::string bytes(3 * elementSize(dtype), '\0');
      for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<char>(dtype == KILN_DTYPE_PRED ? i % 2 : (i * 37 + 11) % 127);
      KilnBuffer* b = kit.upload(c, d, dtype, {3}, bytes);
      KilnBufferInfoArgs info = kit.info(b);
      require(info.dtype == dtype && info.num_dims == 1 && info.dims[0] == 3 &&
                  info.on_device_size == static_cast<int64_t>(bytes.size()) && info.device == d,
              "buffer_info of dtype " + std::to_string(t) + " does not describe the buffer");
      require(kit.download(b) == bytes, "the bytes of dtype " + std::to_string(t) + " came back changed");
    }
  });
  kit.check("empty and scalar buffers", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnBuffer* empty = kit.upload(c, d, KILN_DTYPE_F32, {0, 5}, "");
    require(kit.info(empty).on_device_size == 0 && kit.download(empty).empty(), "an f32[0,5] buffer is not empty");
    KilnBuffer* scalar = kit.scalarI64(c, d, -7);
    int64_t v = 0;
    std::string bytes = kit.download(scalar);
    std::memcpy(&v, bytes.data(), sizeof v);
    require(kit.info(scalar).num_dims == 0 && v == -7, "a scalar did not come back");
  });
  kit.check("buffer misuse is an error object", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnBufferFromHostArgs bad{};
    const int64_t dims[1] = {-1};
    const float data[1] = {0};
    bad.client = c;
    bad.device = d;
    const int notADtype = 99;  // what a C caller may store; no KilnDType in C++
    static_assert(sizeof notADtype == sizeof bad.dtype);
    std::memcpy(&bad.dtype, &notADtype, sizeof notADtype);
    bad.dims = dims + 0;
    bad.num_dims = 0;
    bad.data = data;
    kit.expectError(&KilnPluginApi::buffer_from_host, bad, KILN_ERROR_INVALID_ARGUMENT, "buffer_from_host of dtype 99");
    bad.dtype = KILN_DTYPE_F32;
    bad.num_dims = 1;
    kit.expectError(&KilnPluginApi::buffer_from_host, bad, KILN_ERROR_INVALID_ARGUMENT, "buffer_from_host of dims [-1]");
    KilnClient* other = kit.client();
    bad.dims = nullptr;
    bad.num_dims = 0;
    bad.device = kit.devices(other)[0];
    kit.expectError(&KilnPluginApi::buffer_from_host, bad, KILN_ERROR_INVALID_ARGUMENT,
                    "buffer_from_host onto another client's device");
    KilnBuffer* b = kit.floats(c, d, kFour);
    float small[2];
    KilnBufferToHostArgs toHost{};
    toHost.buffer = b;
    toHost.dst = small;
    toHost.dst_size = sizeof small;
    kit.expectError(&KilnPluginApi::buffer_to_host, toHost, KILN_ERROR_INVALID_ARGUMENT, "buffer_to_host into 8 bytes of 16");
    KilnBufferDeleteArgs del{};
    del.buffer = b;
    kit.expectOk(&KilnPluginApi::buffer_delete, del, "buffer_delete");
    kit.expectOk(&KilnPluginApi::buffer_delete, del, "buffer_delete again");
    float four[4];
    toHost.dst = four;
    toHost.dst_size = sizeof four;
    kit.expectError(&KilnPluginApi::buffer_to_host, toHost, KILN_ERROR_FAILED_PRECONDITION, "buffer_to_host after delete");
    KilnBufferCopyToDeviceArgs copy{};
    copy.buffer = b;
    copy.dst_device = d;
    kit.expectError(&KilnPluginApi::buffer_copy_to_device, copy, KILN_ERROR_FAILED_PRECONDITION,
                    "buffer_copy_to_device after delete");
  });
  kit.check("a client's memory limit is RESOURCE_EXHAUSTED", [&] {
    KilnClient* c = kit.client(0, 64);
    KilnDevice* d = kit.devices(c)[0];
    std::vector<float> big(1024, 1.0f);
    KilnBufferFromHostArgs a{};
    const int64_t dims[1] = {1024};
    a.client = c;
    a.device = d;
    a.dtype = KILN_DTYPE_F32;
    a.dims = dims;
    a.num_dims = 1;
    a.data = big.data();
    kit.expectError(&KilnPluginApi::buffer_from_host, a, KILN_ERROR_RESOURCE_EXHAUSTED, "4096 bytes on a 64-byte device");
  });
  kit.check("buffer_copy_to_device", [&] {
    KilnClient* c = kit.client(2);
    std::vector<KilnDevice*> ds = kit.devices(c);
    if (ds.size() < 2) throw Skip{"the plugin gave one device"};
    KilnBuffer* b = kit.floats(c, ds[0], kFour);
    KilnBufferCopyToDeviceArgs a{};
    a.buffer = b;
    a.dst_device = ds[1];
    kit.expectOk(&KilnPluginApi::buffer_copy_to_device, a, "buffer_copy_to_device");
    kit.own(a.dst_buffer);
    require(kit.info(a.dst_buffer).device == ds[1], "the copy is not on the device asked for");
    kit.expectFloats(a.dst_buffer, kFour, "the copy");
  });
}

// Compiles kAddOne with one named compile option; `executable` gets the executable
// (owned by the kit) when the compile succeeds.
Kit::Outcome compileWithOption(Kit& kit, KilnClient* c, KilnNamedOption option, KilnExecutable** executable = nullptr) {
  KilnCompileArgs a{};
  a.client = c;
  a.code = kAddOne;
  a.code_size = std::strlen(kAddOne);
  a.options = &option;
  a.num_options = 1;
  Kit::Outcome o = kit.call(&KilnPluginApi::compile, a);
  if (o.code == 0) {
    KilnExecutable* compiled = kit.own(a.executable);
    if (executable) *executable = compiled;
  }
  return o;
}

void checkPrograms(Kit& kit) {
  kit.check("compile, and describe the executable", [&] {
    KilnClient* c = kit.client();
    KilnExecutable* x = kit.compile(c, kAddOne);
    KilnExecutableInfoArgs info{};
    info.executable = x;
    kit.expectOk(&KilnPluginApi::executable_info, info, "executable_info");
    require(info.num_parameters == 1 && info.num_results == 1, "not one parameter and one result");
    require(info.name && std::string(info.name) == "main", "the entry is not named main");
    KilnExecutableValueTypeArgs type{};
    type.executable = x;
    kit.expectOk(&KilnPluginApi::executable_value_type, type, "executable_value_type");
    require(type.dtype == KILN_DTYPE_F32 && type.num_dims == 1 && type.dims[0] == 4, "parameter 0 is not f32[4]");
    type.index = 1;
    kit.expectError(&KilnPluginApi::executable_value_type, type, KILN_ERROR_INVALID_ARGUMENT, "parameter 1 of 1");
  });
  kit.check("compile errors name their line", [&] {
    KilnClient* c = kit.client();
    KilnCompileArgs a{};
    a.client = c;
    a.code = kBadText;
    a.code_size = std::strlen(kBadText);
    a.name = "check.mlir";
    std::string message = kit.expectError(&KilnPluginApi::compile, a, KILN_ERROR_INVALID_ARGUMENT, "compiling bad text");
    require(message.find("check.mlir:2:") != std::string::npos, "the message does not name check.mlir:2: " + message);
  });
  kit.check("named compile options: an unknown name is INVALID_ARGUMENT", [&] {
    if (kit.api().minor_version < 5) throw Skip{"the plugin's API 0." + std::to_string(kit.api().minor_version) + " has no named options"};
    KilnClient* c = kit.client();
    std::string message = kit.expectError(compileWithOption(kit, c, {"plugin_check_no_such_option", "1"}),
                                          KILN_ERROR_INVALID_ARGUMENT, "an unknown compile option");
    require(message.find("plugin_check_no_such_option") != std::string::npos, "the message does not name the option: " + message);
    kit.expectError(compileWithOption(kit, c, {nullptr, "1"}), KILN_ERROR_INVALID_ARGUMENT, "a compile option without a name");
  });
  kit.check("client options: an unknown name is INVALID_ARGUMENT", [&] {
    if (kit.api().minor_version < 6) throw Skip{"the plugin's API 0." + std::to_string(kit.api().minor_version) + " has no client options"};
    KilnClientCreateArgs a{};
    const KilnNamedOption unknown{"plugin_check_no_such_option", "1"};
    a.options = &unknown;
    a.num_options = 1;
    std::string message = kit.expectError(&KilnPluginApi::client_create, a, KILN_ERROR_INVALID_ARGUMENT, "an unknown client option");
    require(message.find("plugin_check_no_such_option") != std::string::npos, "the message does not name the option: " + message);
    const KilnNamedOption nullValue{"plugin_check_option", nullptr};
    a.options = &nullValue;
    kit.expectError(&KilnPluginApi::client_create, a, KILN_ERROR_INVALID_ARGUMENT, "a client option without a value");
  });
  kit.check("executable_with_entry and executable_statistics", [&] {
    if (kit.api().minor_version < 5) throw Skip{"the plugin's API 0." + std::to_string(kit.api().minor_version) + " has neither"};
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnExecutable* x = kit.compile(c, kTwoEntries);
    KilnExecutableWithEntryArgs e{};
    e.executable = x;
    e.entry = "twice";
    kit.expectOk(&KilnPluginApi::executable_with_entry, e, "executable_with_entry");
    KilnExecutable* twice = kit.own(e.entry_executable);
    Kit::Run run = kit.executeOk(twice, {{kit.floats(c, d, kFour)}}, {d});
    kit.expectFloats(run.outputs[0][0], {2, 4, 6, 8}, "the result of the other entry");
    Kit::Run first = kit.executeOk(x, {{kit.floats(c, d, kFour)}}, {d});
    kit.expectFloats(first.outputs[0][0], {2, 3, 4, 5}, "the result of the first entry, after");
    e.entry = "thrice";
    kit.expectError(&KilnPluginApi::executable_with_entry, e, KILN_ERROR_INVALID_ARGUMENT, "an entry the module lacks");
    e.entry = nullptr;
    kit.expectError(&KilnPluginApi::executable_with_entry, e, KILN_ERROR_INVALID_ARGUMENT, "a null entry");
    KilnExecutableStatisticsArgs st{};
    st.executable = twice;
    kit.expectOk(&KilnPluginApi::executable_statistics, st, "executable_statistics");
    require(st.num_values == 0 || st.values, "num_values is " + std::to_string(st.num_values) + " but values is null");
    for (size_t i = 0; i < st.num_values; ++i)
      require(st.values[i].name && *st.values[i].name, "statistic " + std::to_string(i) + " has no name");
  });
  kit.check("time_limit_ns: an endless execution stops", [&] {
    if (kit.api().minor_version < 5) throw Skip{"the plugin's API 0." + std::to_string(kit.api().minor_version) + " has no time limit"};
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnExecutable* loop = kit.compile(c, kLoop);
    auto args = [&] { return std::vector<std::vector<KilnBuffer*>>{{kit.scalarI64(c, d, int64_t{1} << 60), kit.floats(c, d, kFour)}}; };
    Kit::Run run = kit.executeOk(loop, args(), {d}, {}, 100'000'000);  // 0.1 s
    // A plugin that ignores the limit would run for ever: given 10 s, it is cancelled.
    const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      KilnEventIsReadyArgs ready{};
      ready.event = run.done[0];
      kit.expectOk(&KilnPluginApi::event_is_ready, ready, "event_is_ready");
      if (ready.is_ready) break;
      if (std::chrono::steady_clock::now() > giveUp) {
        KilnExecutionCancelArgs cancel{};
        cancel.complete_event = run.done[0];
        if (kit.hasFunction(&KilnPluginApi::execution_cancel)) kit.call(&KilnPluginApi::execution_cancel, cancel);
        throw Fail{"still running 10 s past its time limit of 0.1 s (time_limit_ns ignored)"};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::string message = kit.expectError(kit.await(run.done[0]), KILN_ERROR_RUNTIME, "the execution past its time limit");
    require(message.find("time limit exceeded") != std::string::npos, "the message does not say so: " + message);
    kit.expectError(kit.execute(loop, args(), {d}, {}, -1).call, KILN_ERROR_INVALID_ARGUMENT, "a negative time limit");
    KilnExecutable* x = kit.compile(c, kAddOne);
    Kit::Run quick = kit.executeOk(x, {{kit.floats(c, d, kFour)}}, {d}, {}, 60'000'000'000);
    kit.expectFloats(quick.outputs[0][0], {2, 3, 4, 5}, "an execution within its time limit");
  });
  kit.check("execute, with an argument still in flight", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnExecutable* x = kit.compile(c, kAddOne);
    KilnBuffer* in = kit.floats(c, d, kFour);
    Kit::Run first = kit.executeOk(x, {{in}}, {d});
    Kit::Run second = kit.executeOk(x, {{first.outputs[0][0]}}, {d});  // before the first is awaited
    kit.awaitOk(second.done[0], "the second execution");
    kit.expectFloats(second.outputs[0][0], {3, 4, 5, 6}, "x + 1 + 1");
    KilnEventIsReadyArgs ready{};
    ready.event = first.done[0];
    kit.expectOk(&KilnPluginApi::event_is_ready, ready, "event_is_ready");
    require(ready.is_ready == 1, "the first execution is not ready after the second, which read its output");
  });
  kit.check("event_on_ready calls back once", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnExecutable* x = kit.compile(c, kAddOne);
    Kit::Run run = kit.executeOk(x, {{kit.floats(c, d, kFour)}}, {d});
    static std::atomic<int> calls{0}, failures{0};
    calls = 0;
    failures = 0;
    KilnEventOnReadyArgs a{};
    a.event = run.done[0];
    a.callback = [](KilnError* error, void* kit) {
      if (error) {
        ++failures;
        static_cast<Kit*>(kit)->destroyError(error);
      }
      ++calls;
    };
    a.user_arg = &kit;
    kit.expectOk(&KilnPluginApi::event_on_ready, a, "event_on_ready");
    kit.awaitOk(run.done[0], "the execution");
    kit.expectOk(&KilnPluginApi::event_on_ready, a, "event_on_ready on a ready event");
    for (int i = 0; i < 400 && calls < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    require(calls == 2 && failures == 0, std::to_string(calls.load()) + " calls (" + std::to_string(failures.load()) +
                                              " with an error) for two registrations");
  });
  kit.check("execute misuse is an error object", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnExecutable* x = kit.compile(c, kAddOne);
    KilnBuffer* good = kit.floats(c, d, kFour);
    KilnBuffer* shape = kit.floats(c, d, {1, 2});
    KilnBuffer* dtype = kit.upload(c, d, KILN_DTYPE_S32, {4}, std::string(16, '\0'));
    KilnClient* other = kit.client();
    KilnBuffer* foreign = kit.floats(other, kit.devices(other)[0], kFour);
    kit.expectError(kit.execute(x, {{good, good}}, {d}).call, KILN_ERROR_INVALID_ARGUMENT, "two arguments for one");
    kit.expectError(kit.execute(x, {{shape}}, {d}).call, KILN_ERROR_INVALID_ARGUMENT, "an f32[2] argument for f32[4]");
    kit.expectError(kit.execute(x, {{dtype}}, {d}).call, KILN_ERROR_INVALID_ARGUMENT, "an s32[4] argument for f32[4]");
    kit.expectError(kit.execute(x, {{nullptr}}, {d}).call, KILN_ERROR_INVALID_ARGUMENT, "a null argument");
    kit.expectError(kit.execute(x, {{foreign}}, {d}).call, KILN_ERROR_INVALID_ARGUMENT, "another client's buffer");
    kit.expectError(kit.execute(x, {{good}, {good}}).call, KILN_ERROR_INVALID_ARGUMENT, "two devices for one process");
    KilnBufferDeleteArgs del{};
    del.buffer = good;
    kit.expectOk(&KilnPluginApi::buffer_delete, del, "buffer_delete");
    kit.expectError(kit.execute(x, {{good}}, {d}).call, KILN_ERROR_FAILED_PRECONDITION, "a deleted argument");
  });
}

// The capabilities: each checked when listed; otherwise its call must answer UNIMPLEMENTED.
void checkCapabilities(Kit& kit, const std::set<std::string>& caps) {
  kit.check("serialize: a deserialized executable runs", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnExecutable* x = kit.compile(c, kAddOne);
    KilnExecutableSerializeArgs s{};
    s.executable = x;
    Kit::Outcome o = kit.call(&KilnPluginApi::executable_serialize, s);
    if (!caps.count(KILN_CAPABILITY_SERIALIZE)) {
      kit.expectError(o, KILN_ERROR_UNIMPLEMENTED, "executable_serialize without the capability");
      throw Skip{"not a listed capability (answers UNIMPLEMENTED, as it should)"};
    }
    require(o.code == 0, "executable_serialize failed: " + o.message);
    std::string bytes(s.bytes, s.num_bytes);
    KilnExecutableDeserializeArgs back{};
    back.client = c;
    back.bytes = bytes.data();
    back.num_bytes = bytes.size();
    kit.expectOk(&KilnPluginApi::executable_deserialize, back, "executable_deserialize");
    kit.own(back.executable);
    Kit::Run run = kit.executeOk(back.executable, {{kit.floats(c, d, kFour)}}, {d});
    kit.expectFloats(run.outputs[0][0], {2, 3, 4, 5}, "the deserialized executable's result");
    std::string damaged = bytes.substr(0, bytes.size() / 2);
    back.bytes = damaged.data();
    back.num_bytes = damaged.size();
    back.executable = nullptr;
    Kit::Outcome bad = kit.call(&KilnPluginApi::executable_deserialize, back);
    if (bad.code == 0) kit.own(back.executable);
    require(bad.code == KILN_ERROR_IO || bad.code == KILN_ERROR_INVALID_ARGUMENT,
            std::string("half of a serialized executable: ") + (bad.code ? codeName(bad.code) + (": " + bad.message) : "accepted"));
  });
  kit.check("donation: the execution takes the buffer over", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnExecutable* x = kit.compile(c, kAddOne);
    KilnBuffer* in = kit.floats(c, d, kFour);
    if (!caps.count(KILN_CAPABILITY_DONATION))
      throw Skip{"not a listed capability (a plugin without it ignores donated_args: hosts must not set them)"};
    Kit::Run run = kit.executeOk(x, {{in}}, {d}, {0});
    kit.expectFloats(run.outputs[0][0], {2, 3, 4, 5}, "the result of a donating execution");
    kit.expectError(kit.execute(x, {{in}}, {d}).call, KILN_ERROR_FAILED_PRECONDITION, "executing on a donated buffer");
    kit.expectError(kit.execute(x, {{in}}, {d}, {1}).call, KILN_ERROR_INVALID_ARGUMENT, "donating argument 1 of 1");
  });
  kit.check("cancellation: a running execution stops", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    if (!kit.hasFunction(&KilnPluginApi::execution_cancel))
      throw Skip{"the table (API 0." + std::to_string(kit.api().minor_version) + ") has no execution_cancel"};
    if (!caps.count(KILN_CAPABILITY_CANCELLATION)) {
      // Asked of a completed execution: an endless one could then not be stopped.
      KilnExecutable* x = kit.compile(c, kAddOne);
      Kit::Run run = kit.executeOk(x, {{kit.floats(c, d, kFour)}}, {d});
      kit.awaitOk(run.done[0], "the execution");
      KilnExecutionCancelArgs a{};
      a.complete_event = run.done[0];
      kit.expectError(&KilnPluginApi::execution_cancel, a, KILN_ERROR_UNIMPLEMENTED,
                      "execution_cancel without the capability");
      throw Skip{"not a listed capability (answers UNIMPLEMENTED, as it should)"};
    }
    KilnExecutable* loop = kit.compile(c, kLoop);
    Kit::Run run = kit.executeOk(loop, {{kit.scalarI64(c, d, int64_t{1} << 60), kit.floats(c, d, kFour)}}, {d});
    KilnExecutionCancelArgs a{};
    a.complete_event = run.done[0];
    kit.expectOk(&KilnPluginApi::execution_cancel, a, "execution_cancel");
    kit.expectError(kit.await(run.done[0]), KILN_ERROR_CANCELLED, "the cancelled execution's event");
    KilnBufferReadyEventArgs outReady{};
    outReady.buffer = run.outputs[0][0];
    kit.expectOk(&KilnPluginApi::buffer_ready_event, outReady, "buffer_ready_event");
    kit.expectError(kit.await(kit.own(outReady.event)), KILN_ERROR_CANCELLED, "the cancelled execution's output");
    kit.expectOk(&KilnPluginApi::execution_cancel, a, "execution_cancel of a completed execution");
    KilnBufferReadyEventArgs notExecution{};
    notExecution.buffer = kit.floats(c, d, kFour);
    kit.expectOk(&KilnPluginApi::buffer_ready_event, notExecution, "buffer_ready_event");
    a.complete_event = kit.own(notExecution.event);
    kit.expectError(&KilnPluginApi::execution_cancel, a, KILN_ERROR_INVALID_ARGUMENT, "cancelling a buffer's event");
  });
  kit.check("a failure reaches the events of what depended on it", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    if (!caps.count(KILN_CAPABILITY_CANCELLATION)) throw Skip{"needs cancellation to hold the device's queue"};
    KilnExecutable* loop = kit.compile(c, kLoop);
    KilnExecutable* x = kit.compile(c, kAddOne);
    KilnBuffer* in = kit.floats(c, d, kFour);  // before the blocker: copies in queue behind it too
    Kit::Run blocker = kit.executeOk(loop, {{kit.scalarI64(c, d, int64_t{1} << 60), kit.floats(c, d, kFour)}}, {d});
    Kit::Run reads = kit.executeOk(x, {{in}}, {d});  // queued behind the blocker
    Kit::Run dependent = kit.executeOk(x, {{reads.outputs[0][0]}}, {d});
    KilnExecutionCancelArgs cancel{};
    cancel.complete_event = reads.done[0];
    kit.expectOk(&KilnPluginApi::execution_cancel, cancel, "execution_cancel");  // before it ran
    cancel.complete_event = blocker.done[0];
    kit.expectOk(&KilnPluginApi::execution_cancel, cancel, "execution_cancel");
    kit.expectError(kit.await(reads.done[0]), KILN_ERROR_CANCELLED, "the cancelled execution");
    kit.expectError(kit.await(dependent.done[0]), KILN_ERROR_CANCELLED, "the execution that read its output");
  });
  kit.check("buffer_delete: reads queued before it still read", [&] {
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    if (kit.api().minor_version < 5) throw Skip{"before API 0.5, such a read failed"};
    if (!caps.count(KILN_CAPABILITY_CANCELLATION)) throw Skip{"needs cancellation to hold the device's queue"};
    KilnExecutable* loop = kit.compile(c, kLoop);
    KilnExecutable* x = kit.compile(c, kAddOne);
    KilnBuffer* in = kit.floats(c, d, kFour);
    Kit::Run blocker = kit.executeOk(loop, {{kit.scalarI64(c, d, int64_t{1} << 60), kit.floats(c, d, kFour)}}, {d});
    Kit::Run reads = kit.executeOk(x, {{in}}, {d});  // queued behind the blocker
    KilnBufferDeleteArgs del{};
    del.buffer = in;
    kit.expectOk(&KilnPluginApi::buffer_delete, del, "buffer_delete");
    kit.expectError(kit.execute(x, {{in}}, {d}).call, KILN_ERROR_FAILED_PRECONDITION, "executing on the deleted buffer");
    KilnExecutionCancelArgs cancel{};
    cancel.complete_event = blocker.done[0];
    kit.expectOk(&KilnPluginApi::execution_cancel, cancel, "execution_cancel");
    kit.expectFloats(reads.outputs[0][0], {2, 3, 4, 5}, "the result of the execution queued before the delete");
  });
  kit.check("multi_device: two replicas sum through all_reduce", [&] {
    KilnClient* c = kit.client(2);
    std::vector<KilnDevice*> ds = kit.devices(c);
    KilnCompileArgs a{};
    a.client = c;
    a.code = kSumOfTwo;
    a.code_size = std::strlen(kSumOfTwo);
    a.num_replicas = 2;
    Kit::Outcome o = kit.call(&KilnPluginApi::compile, a);
    if (o.code == 0) kit.own(a.executable);
    if (!caps.count(KILN_CAPABILITY_MULTI_DEVICE)) {
      require(o.code != 0, "compiled for 2 replicas without the capability multi_device");
      kit.expectError(o, KILN_ERROR_UNIMPLEMENTED, "compiling for 2 replicas without the capability");
      throw Skip{"not a listed capability (answers UNIMPLEMENTED, as it should)"};
    }
    require(o.code == 0, std::string("compile for 2 replicas failed: ") + codeName(o.code) + ": " + o.message);
    require(ds.size() >= 2, "the client has one device");
    KilnBuffer* x0 = kit.floats(c, ds[0], kFour);
    KilnBuffer* x1 = kit.floats(c, ds[1], {10, 20, 30, 40});
    kit.expectError(kit.execute(a.executable, {{x0}}, {ds[0]}).call, KILN_ERROR_INVALID_ARGUMENT,
                    "one device for two replicas");
    Kit::Run run = kit.executeOk(a.executable, {{x0}, {x1}}, {ds[0], ds[1]});
    for (int r = 0; r < 2; ++r) kit.expectFloats(run.outputs[r][0], {11, 22, 33, 44}, "replica " + std::to_string(r));
  });
}

void checkTexts(Kit& kit, const std::set<std::string>& caps) {
  kit.check("executable_text: a text by name; an unknown name is INVALID_ARGUMENT", [&] {
    if (kit.api().minor_version < 7) throw Skip{"the plugin's API 0." + std::to_string(kit.api().minor_version) + " has no texts"};
    KilnClient* c = kit.client();
    KilnExecutableTextArgs t{};
    t.executable = kit.compile(c, kAddOne);
    t.name = "program";
    Kit::Outcome o = kit.call(&KilnPluginApi::executable_text, t);
    if (!caps.count(KILN_CAPABILITY_TEXT)) {
      kit.expectError(o, KILN_ERROR_UNIMPLEMENTED, "executable_text without the capability");
      throw Skip{"not a listed capability (answers UNIMPLEMENTED, as it should)"};
    }
    // Which names a plugin knows is its own; an unknown one must be refused by name.
    if (o.code == 0) require(t.text_size == 0 || t.text, "text_size is " + std::to_string(t.text_size) + " but text is null");
    t.name = "plugin_check_no_such_text";
    std::string message = kit.expectError(kit.call(&KilnPluginApi::executable_text, t), KILN_ERROR_INVALID_ARGUMENT,
                                          "an unknown text");
    require(message.find("plugin_check_no_such_text") != std::string::npos, "the message does not name the text: " + message);
    t.name = nullptr;
    kit.expectError(kit.call(&KilnPluginApi::executable_text, t), KILN_ERROR_INVALID_ARGUMENT, "a null name");
  });
  kit.check("profile: a profiled executable runs and returns its profile", [&] {
    if (kit.api().minor_version < 7) throw Skip{"the plugin's API 0." + std::to_string(kit.api().minor_version) + " has no profiles"};
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    KilnExecutable* x = nullptr;
    Kit::Outcome o = compileWithOption(kit, c, {"profile", "1"}, &x);
    if (!caps.count(KILN_CAPABILITY_PROFILE)) {
      require(o.code != 0, "compiled with profile=1 without the capability profile");
      if (o.code != KILN_ERROR_UNIMPLEMENTED) kit.expectError(o, KILN_ERROR_INVALID_ARGUMENT, "profile=1 without the capability");
      throw Skip{"not a listed capability (refuses the option, as it should)"};
    }
    require(o.code == 0, std::string("compile with profile=1 failed: ") + codeName(o.code) + ": " + o.message);
    for (int i = 0; i < 2; ++i) {
      Kit::Run run = kit.executeOk(x, {{kit.floats(c, d, kFour)}}, {d});
      kit.expectFloats(run.outputs[0][0], {2, 3, 4, 5}, "a profiled run's result");
    }
    require(caps.count(KILN_CAPABILITY_TEXT), "the capability profile without the capability text");
    KilnExecutableTextArgs t{};
    t.executable = x;
    t.name = "profile";
    kit.expectOk(&KilnPluginApi::executable_text, t, "executable_text of \"profile\"");
    require(t.text && t.text_size > 0, "an empty profile after two runs");
  });
}

void checkFeeds(Kit& kit, const std::set<std::string>& caps) {
  kit.check("feeds: a program takes the device's infeed; the host reads its outfeed", [&] {
    if (kit.api().minor_version < 8) throw Skip{"the plugin's API 0." + std::to_string(kit.api().minor_version) + " has no feeds"};
    KilnClient* c = kit.client();
    KilnDevice* d = kit.devices(c)[0];
    const int64_t dims[] = {4};
    KilnDeviceInfeedArgs in{};
    in.device = d;
    in.dtype = KILN_DTYPE_F32;
    in.dims = dims;
    in.num_dims = 1;
    in.data = kFour.data();
    Kit::Outcome o = kit.call(&KilnPluginApi::device_infeed, in);
    if (!caps.count(KILN_CAPABILITY_FEEDS)) {
      kit.expectError(o, KILN_ERROR_UNIMPLEMENTED, "device_infeed without the capability");
      throw Skip{"not a listed capability (answers UNIMPLEMENTED, as it should)"};
    }
    require(o.code == 0, std::string("device_infeed failed: ") + codeName(o.code) + ": " + o.message);
    // Asked for before the program runs: served once it outfeeds.
    float got[4] = {};
    KilnDeviceOutfeedArgs out{};
    out.device = d;
    out.dtype = KILN_DTYPE_F32;
    out.dims = dims;
    out.num_dims = 1;
    out.dst = got;
    out.dst_size = sizeof got;
    kit.expectOk(&KilnPluginApi::device_outfeed, out, "device_outfeed");
    KilnEvent* outfed = kit.own(out.event);
    Kit::Run run = kit.executeOk(kit.compile(c, kFeeds), {{}}, {d});
    kit.expectFloats(run.outputs[0][0], {2, 3, 4, 5}, "the result of the program that read the infeed");
    kit.awaitOk(outfed, "device_outfeed's copy");
    require(std::vector<float>(got, got + 4) == std::vector<float>{2, 3, 4, 5}, "the outfed value differs from the result");
    // A request of another type fails and leaves the value for the next.
    in.data = kFour.data();
    kit.expectOk(&KilnPluginApi::device_infeed, in, "device_infeed");
    kit.executeOk(kit.compile(c, kFeeds), {{}}, {d});
    const int64_t three[] = {3};
    float wrong[3] = {};
    KilnDeviceOutfeedArgs bad = out;
    bad.dims = three;
    bad.dst = wrong;
    bad.dst_size = sizeof wrong;
    kit.expectOk(&KilnPluginApi::device_outfeed, bad, "device_outfeed of another type");
    kit.expectError(kit.await(kit.own(bad.event)), KILN_ERROR_INVALID_ARGUMENT, "a request of another type than the value's");
    std::fill(got, got + 4, 0.0f);
    kit.expectOk(&KilnPluginApi::device_outfeed, out, "device_outfeed after a request of another type");
    kit.awaitOk(kit.own(out.event), "device_outfeed's copy after a request of another type");
    require(std::vector<float>(got, got + 4) == std::vector<float>{2, 3, 4, 5}, "the value a wrong request left differs");
    // Misuse: a token, a size that is not the value's, null device and data.
    in.dtype = KILN_DTYPE_TOKEN;
    kit.expectError(&KilnPluginApi::device_infeed, in, KILN_ERROR_INVALID_ARGUMENT, "device_infeed of a token");
    in.dtype = KILN_DTYPE_F32;
    in.data = nullptr;
    kit.expectError(&KilnPluginApi::device_infeed, in, KILN_ERROR_INVALID_ARGUMENT, "device_infeed of null data");
    in.device = nullptr;
    kit.expectError(&KilnPluginApi::device_infeed, in, KILN_ERROR_INVALID_ARGUMENT, "device_infeed(device NULL)");
    out.dst_size = 3;
    out.event = nullptr;
    kit.expectError(&KilnPluginApi::device_outfeed, out, KILN_ERROR_INVALID_ARGUMENT, "device_outfeed with dst_size 3");
    out.dst_size = sizeof got;
    out.device = nullptr;
    kit.expectError(&KilnPluginApi::device_outfeed, out, KILN_ERROR_INVALID_ARGUMENT, "device_outfeed(device NULL)");
  });
}

void checkProcessEntries(Kit& kit, const std::set<std::string>& caps) {
  kit.check("mpmd: processes run different functions, send/recv and tokens", [&] {
    if (!caps.count(KILN_CAPABILITY_MPMD))
      throw Skip{"not a listed capability (a plugin without it ignores process_entries: hosts must not set them)"};
    KilnClient* c = kit.client(2);
    std::vector<KilnDevice*> ds = kit.devices(c);
    require(ds.size() >= 2, "the client has one device");
    const char* entries[] = {"producer", "consumer"};
    KilnCompileArgs a{};
    a.client = c;
    a.code = kSendRecv;
    a.code_size = std::strlen(kSendRecv);
    a.num_replicas = 2;
    a.process_entries = entries;
    a.num_process_entries = 2;
    kit.expectOk(&KilnPluginApi::compile, a, "compile with process_entries");
    kit.own(a.executable);
    KilnExecutableInfoArgs consumer{};
    consumer.executable = a.executable;
    consumer.process = 1;
    kit.expectOk(&KilnPluginApi::executable_info, consumer, "executable_info of process 1");
    require(consumer.num_parameters == 1 && consumer.num_results == 2 && std::string(consumer.name) == "consumer",
            "process 1 is not described as @consumer(token) -> (tensor, token)");
    KilnBuffer* t0 = kit.upload(c, ds[0], KILN_DTYPE_TOKEN, {}, "");
    KilnBuffer* t1 = kit.upload(c, ds[1], KILN_DTYPE_TOKEN, {}, "");
    require(kit.info(t0).dtype == KILN_DTYPE_TOKEN && kit.info(t0).on_device_size == 0, "a token buffer is not one");
    KilnBuffer* x = kit.floats(c, ds[0], kFour);
    KilnBuffer* list0[] = {x, t0};
    KilnBuffer* list1[] = {t1};
    KilnBuffer* const* argLists[] = {list0, list1};
    const size_t counts[] = {2, 1};
    KilnBuffer* out0[1] = {};
    KilnBuffer* out1[2] = {};
    KilnBuffer** outLists[] = {out0, out1};
    KilnEvent* done[2] = {};
    KilnDevice* const onDevices[] = {ds[0], ds[1]};
    KilnExecuteArgs e{};
    e.executable = a.executable;
    e.num_devices = 2;
    e.devices = onDevices;
    e.argument_lists = argLists;
    e.num_args = 2;
    e.num_args_per_device = counts;
    e.output_lists = outLists;
    e.complete_events = done;
    kit.expectOk(&KilnPluginApi::execute, e, "execute with num_args_per_device");
    kit.own(out0[0]);
    kit.own(out1[0]);
    kit.own(out1[1]);
    kit.awaitOk(kit.own(done[0]), "the producer");
    kit.awaitOk(kit.own(done[1]), "the consumer");
    kit.expectFloats(out1[0], kFour, "what the consumer received");
    require(kit.info(out0[0]).dtype == KILN_DTYPE_TOKEN, "the producer's result is not a token");
  });
}

}  // namespace

PluginCheckSummary checkPlugin(const std::string& nameOrPath, std::ostream& out, double hangSeconds) {
  const bool isPath = nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".so");
  installCrashHandlers();  // before loading: the loader calls into the plugin too
  const runtime::LoadedPlugin& plugin = isPath ? runtime::loadPluginFile(nameOrPath) : runtime::loadPlugin(nameOrPath);
  startWatchdog(hangSeconds);
  Kit kit(plugin, out);
  // As the loader asked them of plugin_attributes (whose own check is below).
  const std::set<std::string> caps(plugin.capabilities.begin(), plugin.capabilities.end());
  std::string listed;
  for (const std::string& cap : caps) listed += (listed.empty() ? "" : ", ") + cap;
  out << "plugin-check: " << plugin.path << ": API " << plugin.api->major_version << "."
      << plugin.api->minor_version << "; capabilities" << (plugin.api->minor_version < 4 ? " (implied by the version)" : "")
      << ": " << (listed.empty() ? "none" : listed) << "\n";
  checkTable(kit);
  checkArgsDiscipline(kit);
  checkClientsAndDevices(kit, caps);
  checkBuffers(kit);
  checkPrograms(kit);
  checkCapabilities(kit, caps);
  checkTexts(kit, caps);
  checkFeeds(kit, caps);
  checkProcessEntries(kit, caps);
  return kit.summary();
}

}  // namespace kiln::testing
