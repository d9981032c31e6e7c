// Figures of the runtime (issue: runtime), each beside a reference measured in the same
// run, interleaved, because this machine's bandwidth drifts by a quarter over minutes.
//  1. Dispatch: executes of a tiny program (x + 1 on f32[4]) issued back to back through
//     kiln's client (each with its outputs and event destroyed, the last one awaited),
//     and execute-plus-await latency, against calling the cpu backend's executable
//     directly (synchronously, no runtime in between); the program runs on the caller's
//     thread (the plugins' default for one this small) and, as a second figure, on the
//     device's thread; and the same executes through the plugin's PJRT table called by
//     hand (GetPjrtApi), which shows what the client's C++ adds.
//  2. Host -> device -> host round trip of 64 MiB through the cpu plugin (buffer from
//     host, awaited; copy to host, awaited) as a bandwidth, against memcpy of 64 MiB.
//  3. all_reduce (sum, f32) of 64 MiB on 2 and 4 cpu devices, inputs already on the
//     devices, as 64 MiB / time, against the same memcpy.
// Run: build/bench/runtime_bench (make bench), or with the figures to measure named
// (dispatch, roundtrip, allreduce: one part under a profiler). Best of several rounds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/program_cache.h"
#include "runtime/client.h"
#include "runtime/pjrt_loader.h"

namespace {

using namespace kiln;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

constexpr const char* kTiny = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %y = stablehlo.add %x, %one : tensor<4xf32>
  return %y : tensor<4xf32>
})";

std::string allReduceProgram(int devices, int64_t elements) {
  std::string group;
  for (int d = 0; d < devices; ++d) group += (d ? ", " : "") + std::to_string(d);
  std::string t = "tensor<" + std::to_string(elements) + "xf32>";
  return "func.func @main(%x: " + t + ") -> " + t + " {\n  %s = \"stablehlo.all_reduce\"(%x) ({\n" +
         "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n      %r = stablehlo.add %a, %b : tensor<f32>\n" +
         "      stablehlo.return %r : tensor<f32>\n  }) {replica_groups = dense<[[" + group + "]]> : tensor<1x" +
         std::to_string(devices) + "xi64>} : (" + t + ") -> " + t + "\n  return %s : " + t + "\n}\n";
}

// One execute through kiln's client (runtime/client.h), its outputs and event destroyed;
// `await` waits first.
struct ClientExecute {
  const runtime::Executable& exe;
  const runtime::Device& device;
  const runtime::Buffer& arg;

  void operator()(bool await) const {
    runtime::Executable::Execution run = exe.execute({&arg}, device);
    if (await) run.done.await();
  }
};

// The same through the plugin's PJRT table: a client of its own, the tiny program
// compiled and its argument uploaded once; one execute, its output and event destroyed.
class PjrtExecute {
 public:
  explicit PjrtExecute(const runtime::PjrtPlugin& plugin) : api_(*plugin.api) {
    PJRT_Client_Create_Args create{};
    create.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
    check(api_.PJRT_Client_Create(&create));
    client_ = create.client;
    PJRT_Client_AddressableDevices_Args devices{PJRT_Client_AddressableDevices_Args_STRUCT_SIZE, nullptr, client_};
    check(api_.PJRT_Client_AddressableDevices(&devices));
    PJRT_Program program{};
    program.struct_size = PJRT_Program_STRUCT_SIZE;
    program.code = const_cast<char*>(kTiny);
    program.code_size = std::strlen(kTiny);
    program.format = "mlir";
    program.format_size = 4;
    PJRT_Client_Compile_Args compile{};
    compile.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
    compile.client = client_;
    compile.program = &program;
    check(api_.PJRT_Client_Compile(&compile));
    exe_ = compile.executable;
    static const float x[4] = {0, 0, 0, 0};
    static const int64_t dims[1] = {4};
    PJRT_Client_BufferFromHostBuffer_Args in{};
    in.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
    in.client = client_;
    in.data = x;
    in.type = PJRT_Buffer_Type_F32;
    in.dims = dims;
    in.num_dims = 1;
    in.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    in.device = devices.addressable_devices[0];
    check(api_.PJRT_Client_BufferFromHostBuffer(&in));
    arg_ = in.buffer;
    await(in.done_with_host_buffer);
  }
  ~PjrtExecute() {
    PJRT_Buffer_Destroy_Args b{PJRT_Buffer_Destroy_Args_STRUCT_SIZE, nullptr, arg_};
    check(api_.PJRT_Buffer_Destroy(&b));
    PJRT_LoadedExecutable_Destroy_Args e{PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE, nullptr, exe_};
    check(api_.PJRT_LoadedExecutable_Destroy(&e));
    PJRT_Client_Destroy_Args c{PJRT_Client_Destroy_Args_STRUCT_SIZE, nullptr, client_};
    check(api_.PJRT_Client_Destroy(&c));
  }

  void operator()(bool wait) const {
    PJRT_Buffer* out = nullptr;
    PJRT_Buffer** outList = &out;
    PJRT_Buffer* const* argList = &arg_;
    PJRT_Event* done = nullptr;
    PJRT_ExecuteOptions options{};
    options.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
    PJRT_LoadedExecutable_Execute_Args e{};
    e.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
    e.executable = exe_;
    e.options = &options;
    e.argument_lists = &argList;
    e.num_devices = 1;
    e.num_args = 1;
    e.output_lists = &outList;
    e.device_complete_events = &done;
    check(api_.PJRT_LoadedExecutable_Execute(&e));
    if (wait) await(done);
    else destroy(done);
    PJRT_Buffer_Destroy_Args b{PJRT_Buffer_Destroy_Args_STRUCT_SIZE, nullptr, out};
    check(api_.PJRT_Buffer_Destroy(&b));
  }

 private:
  void await(PJRT_Event* event) const {
    PJRT_Event_Await_Args w{PJRT_Event_Await_Args_STRUCT_SIZE, nullptr, event};
    check(api_.PJRT_Event_Await(&w));
    destroy(event);
  }
  void destroy(PJRT_Event* event) const {
    PJRT_Event_Destroy_Args d{PJRT_Event_Destroy_Args_STRUCT_SIZE, nullptr, event};
    check(api_.PJRT_Event_Destroy(&d));
  }
  void check(PJRT_Error* error) const {
    if (error) throw Error(ErrorKind::Internal, "runtime_bench: " + runtime::takeError(api_, error));
  }

  const PJRT_Api& api_;
  PJRT_Client* client_ = nullptr;
  PJRT_LoadedExecutable* exe_ = nullptr;
  PJRT_Buffer* arg_ = nullptr;
};

// Back-to-back and execute + await times per call (best of 5 rounds) on `client`.
struct DispatchTimes {
  double issue = 1e9, latency = 1e9;
};

template <class Execute>
DispatchTimes timeDispatch(const Execute& execute) {
  const int n = 20000;
  DispatchTimes best;
  for (int round = 0; round < 5; ++round) {
    auto start = Clock::now();
    for (int i = 0; i < n; ++i) execute(i == n - 1);
    best.issue = std::min(best.issue, secondsSince(start) / n);
    start = Clock::now();
    for (int i = 0; i < n / 4; ++i) execute(true);
    best.latency = std::min(best.latency, secondsSince(start) / (n / 4));
  }
  return best;
}

DispatchTimes timeDispatch(const runtime::Client& client, const Literal& x) {
  runtime::Device device = client.devices()[0];
  runtime::Executable exe = client.compile(kTiny);
  runtime::Buffer arg = client.bufferFromHost(x, device);
  arg.readyEvent().await();
  return timeDispatch(ClientExecute{exe, device, arg});
}

// The tiny program through kiln's client, run on the caller's thread (the default for a
// program this small: the client option "inline_execution") and handed to the device's
// thread ("never"), against the backend's executable called directly.
void dispatch(const runtime::Plugin& plugin) {
  Literal x(Type::tensor(DType::F32, {4}));
  cpu::CompiledSource direct = cpu::compileSource(SourceBuffer::fromString("tiny", kTiny), {});
  const Function& entry = *direct.executable->module().lookup("main");
  interp::HostValues args = {x};
  runtime::Client inlined(plugin);
  runtime::ClientOptions queuedOptions;
  queuedOptions.inlineExecution = false;
  runtime::Client queued(plugin, queuedOptions);
  const PjrtExecute pjrt(runtime::loadPjrtPlugin(plugin.path()));
  DispatchTimes here, handed, viaPjrt;
  double call = 1e9;
  for (int round = 0; round < 3; ++round) {  // interleaved, against the machine's drift
    DispatchTimes h = timeDispatch(inlined, x), q = timeDispatch(queued, x), p = timeDispatch(pjrt);
    here = {std::min(here.issue, h.issue), std::min(here.latency, h.latency)};
    handed = {std::min(handed.issue, q.issue), std::min(handed.latency, q.latency)};
    viaPjrt = {std::min(viaPjrt.issue, p.issue), std::min(viaPjrt.latency, p.latency)};
    auto start = Clock::now();
    for (int i = 0; i < 20000; ++i) direct.executable->call(entry, args);
    call = std::min(call, secondsSince(start) / 20000);
  }
  std::printf("dispatch of a tiny program (x + 1 on f32[4]), best of 15 rounds:\n");
  std::printf("  client execute, back to back         %6.2f us per call   (target <= 2 us)\n", here.issue * 1e6);
  std::printf("  client execute + await               %6.2f us per call   (target <= 10 us)\n", here.latency * 1e6);
  std::printf("  the same on the device's thread (inline_execution never):\n");
  std::printf("    back to back %.2f us, execute + await %.2f us per call\n", handed.issue * 1e6, handed.latency * 1e6);
  std::printf("  PJRT's table by hand, back to back %.2f us, execute + await %.2f us per call\n",
              viaPjrt.issue * 1e6, viaPjrt.latency * 1e6);
  std::printf("  backend executable called directly   %6.2f us per call\n", call * 1e6);
  std::printf("  ratio to direct: back to back %.2fx, execute + await %.2fx (device's thread: %.2fx, %.2fx)\n",
              here.issue / call, here.latency / call, handed.issue / call, handed.latency / call);
}

// memcpy of `bytes` (best of `rounds`), as the reference for the bandwidth figures.
double memcpySeconds(std::vector<char>& dst, const std::vector<char>& src) {
  auto start = Clock::now();
  std::memcpy(dst.data(), src.data(), src.size());
  return secondsSince(start);
}

void roundTrip(const runtime::Client& client) {
  const int64_t bytes = int64_t{64} << 20;
  std::vector<char> host(static_cast<size_t>(bytes), 1), back(static_cast<size_t>(bytes)), scratch(static_cast<size_t>(bytes));
  runtime::Device device = client.devices()[0];
  double trip = 1e9, copy = 1e9;
  for (int round = 0; round < 8; ++round) {
    auto start = Clock::now();
    auto [buffer, doneWithHost] = client.bufferFromHost(host.data(), DType::F32, {bytes / 4}, device);
    doneWithHost.await();
    buffer.readyEvent().await();
    buffer.toHost(back.data(), back.size()).await();
    trip = std::min(trip, secondsSince(start));
    copy = std::min(copy, memcpySeconds(scratch, host));
  }
  if (std::memcmp(host.data(), back.data(), host.size()) != 0) throw Error(ErrorKind::Internal, "round trip differs");
  double tripBandwidth = 2.0 * static_cast<double>(bytes) / trip;  // two transfers
  double copyBandwidth = static_cast<double>(bytes) / copy;
  std::printf("host -> device -> host of 64 MiB (cpu plugin), best of 8:\n");
  std::printf("  round trip %.1f ms: %.2f GB/s over both copies; memcpy %.2f GB/s: %.0f%% (target >= 50%%)\n",
              trip * 1e3, tripBandwidth / 1e9, copyBandwidth / 1e9, 100 * tripBandwidth / copyBandwidth);
}

void allReduce(const runtime::Plugin& plugin, int devices) {
  const int64_t elements = int64_t{16} << 20;  // 64 MiB of f32
  runtime::Client client(plugin, runtime::ClientOptions{devices, 0});
  runtime::CompileOptions options;
  options.replicas = devices;
  runtime::Executable exe = client.compile(allReduceProgram(devices, elements), options);
  std::vector<runtime::Device> all = client.devices();
  std::vector<runtime::Buffer> inputs;
  std::vector<float> host(static_cast<size_t>(elements));
  for (int d = 0; d < devices; ++d) {
    std::fill(host.begin(), host.end(), static_cast<float>(d + 1));
    auto [buffer, done] = client.bufferFromHost(host.data(), DType::F32, {elements}, all[static_cast<size_t>(d)]);
    done.await();
    inputs.push_back(buffer);
  }
  std::vector<std::vector<const runtime::Buffer*>> args;
  for (const runtime::Buffer& b : inputs) args.push_back({&b});
  std::vector<char> src(static_cast<size_t>(elements) * 4, 1), dst(src.size());
  double reduce = 1e9, copy = 1e9;
  float first = 0;
  for (int round = 0; round < 5; ++round) {
    auto start = Clock::now();
    std::vector<runtime::Executable::Execution> runs = exe.execute(args, all);
    for (auto& r : runs) r.done.await();
    reduce = std::min(reduce, secondsSince(start));
    copy = std::min(copy, memcpySeconds(dst, src));
    first = runs[0].outputs[0].toLiteral().floatAt(0);
  }
  const float expected = static_cast<float>(devices * (devices + 1) / 2);
  if (first != expected) throw Error(ErrorKind::Internal, "all_reduce gave " + std::to_string(first));
  double bandwidth = static_cast<double>(elements) * 4 / reduce, copyBandwidth = static_cast<double>(src.size()) / copy;
  std::printf("  %d devices: %.1f ms, %.2f GB/s (64 MiB / time); memcpy %.2f GB/s: %.0f%%\n", devices, reduce * 1e3,
              bandwidth / 1e9, copyBandwidth / 1e9, 100 * bandwidth / copyBandwidth);
}

}  // namespace

int main(int argc, char** argv) {
  auto wanted = [&](const char* part) {
    if (argc < 2) return true;
    for (int i = 1; i < argc; ++i)
      if (std::strcmp(argv[i], part) == 0) return true;
    return false;
  };
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "dispatch") != 0 && std::strcmp(argv[i], "roundtrip") != 0 &&
        std::strcmp(argv[i], "allreduce") != 0) {
      std::fprintf(stderr, "runtime_bench: unknown figure '%s' (dispatch, roundtrip, allreduce)\n", argv[i]);
      return 2;
    }
  try {
    runtime::Plugin cpu = runtime::Plugin::load("cpu");
    runtime::Client client(cpu);
    if (wanted("dispatch")) dispatch(cpu);
    if (wanted("roundtrip")) roundTrip(client);
    if (wanted("allreduce")) {
      std::printf("all_reduce (sum) of 64 MiB of f32 on cpu devices, best of 5:\n");
      allReduce(cpu, 2);
      allReduce(cpu, 4);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "runtime_bench: %s\n", e.format().c_str());
    return 1;
  }
  return 0;
}
