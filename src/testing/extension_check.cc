// The plugin conformance kit's checks of the kiln extension (kiln_extension.h): time
// limits, cancellation, texts, the function each process runs, another entry, feeds. A
// plugin without the extension skips them all.
#include <chrono>
#include <thread>

#include "testing/plugin_kit.h"

namespace kiln::testing {
namespace {

constexpr const char* kAddOne = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %y = stablehlo.add %x, %one : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func public @negated(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.negate %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
)";

// sin applied n times: long enough to stop, however fast the plugin.
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

constexpr const char* kFeeds = R"(func.func @main() -> tensor<4xf32> {
  %t = stablehlo.after_all : !stablehlo.token
  %x:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %y = stablehlo.add %x#0, %one : tensor<4xf32>
  %done = "stablehlo.outfeed"(%y, %x#1) : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  return %y : tensor<4xf32>
}
)";

// The endless loop started on `device` (through `wrap`, when given); its output and event.
struct Started {
  PJRT_Buffer* output = nullptr;
  PJRT_Event* done = nullptr;
};

Started startEndless(PjrtKit& kit, PJRT_Client* client, PJRT_Device* device,
                     const std::function<PJRT_Error*(PJRT_LoadedExecutable_Execute_Args&)>& wrap = {}) {
  PJRT_LoadedExecutable* loop = kit.compile(client, kLoop);
  std::vector<uint8_t> n(sizeof(int64_t));
  const int64_t forever = int64_t{1} << 60;
  std::memcpy(n.data(), &forever, sizeof forever);
  PJRT_Buffer* count = kit.upload(client, device, PJRT_Buffer_Type_S64, {}, n);
  PJRT_Buffer* x = kit.floats(client, device, {1, 2, 3, 4});
  std::vector<std::vector<PJRT_Buffer*>> outputs = {{nullptr}};
  std::vector<PJRT_Event*> done(1, nullptr);
  const PjrtKit::Outcome o = kit.startExecuteOn(loop, {{count, x}}, outputs, done, {}, wrap);
  if (o.code != PJRT_Error_Code_OK) throw Fail{"starting the endless loop failed: " + o.message};
  return {kit.own(outputs[0][0]), kit.own(done[0])};
}

// Whether `event` is ready within `seconds`.
bool readyWithin(const PjrtKit& kit, PJRT_Event* event, double seconds) {
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    PJRT_Event_IsReady_Args ready{PJRT_Event_IsReady_Args_STRUCT_SIZE, nullptr, event, false};
    kit.ok(kit.api().PJRT_Event_IsReady(&ready), "PJRT_Event_IsReady");
    if (ready.is_ready) return true;
    if (std::chrono::steady_clock::now() > giveUp) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void cancel(const PjrtKit& kit, PJRT_Event* event) {
  KILN_Event_Cancel_Args a{sizeof a, event};
  kit.outcomeOf(kit.extension().event_cancel(&a));
}

PJRT_Executable* executableOf(PjrtKit& kit, PJRT_LoadedExecutable* loaded) {
  PJRT_LoadedExecutable_GetExecutable_Args get{PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, nullptr, loaded,
                                               nullptr};
  kit.ok(kit.api().PJRT_LoadedExecutable_GetExecutable(&get), "PJRT_LoadedExecutable_GetExecutable");
  return get.executable;
}

}  // namespace

void checkKilnExtension(PjrtKit& kit) {
  kit.check("kiln extension: on the chain, with a version", [&] {
    const KILN_Extension& e = kit.extension();
    require(e.version >= 1, "version " + std::to_string(e.version));
    require(e.base.struct_size >= sizeof(KILN_Extension) || e.version < KILN_PJRT_EXTENSION_VERSION,
            "struct_size " + std::to_string(e.base.struct_size) + " is smaller than its version's");
  });
  kit.check("kiln extension: a time limit stops an endless execution", [&] {
    const KILN_Extension& e = kit.extension();
    PJRT_Client* client = kit.client();
    PJRT_Device* device = kit.devices(client)[0];
    const Started run = startEndless(kit, client, device, [&](PJRT_LoadedExecutable_Execute_Args& a) {
      KILN_Execute_Args k{};
      k.struct_size = sizeof k;
      k.execute = &a;
      k.time_limit_ns = 100'000'000;  // 0.1 s
      return e.execute(&k);
    });
    // A plugin that ignores the limit would run for ever: given 10 s, it is cancelled.
    if (!readyWithin(kit, run.done, 10)) {
      cancel(kit, run.done);
      throw Fail{"still running 10 s past its time limit of 0.1 s"};
    }
    const PjrtKit::Outcome o = kit.outcomeOfEvent(run.done);
    require(o.code != PJRT_Error_Code_OK, "an endless execution under a time limit completed");
    require(o.message.find("time limit exceeded") != std::string::npos, "its error does not say so: " + o.message);
  });
  kit.check("kiln extension: cancellation stops a running execution", [&] {
    kit.extension();
    PJRT_Client* client = kit.client();
    PJRT_Device* device = kit.devices(client)[0];
    const Started run = startEndless(kit, client, device);
    KILN_Event_Cancel_Args a{sizeof a, run.done};
    kit.ok(kit.extension().event_cancel(&a), "KILN_Event_Cancel");
    if (!readyWithin(kit, run.done, 10)) throw Fail{"still running 10 s after it was cancelled"};
    require(kit.outcomeOfEvent(run.done).code == PJRT_Error_Code_CANCELLED, "its event does not say CANCELLED");
    PJRT_Buffer_ReadyEvent_Args outReady{PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE, nullptr, run.output, nullptr};
    kit.ok(kit.api().PJRT_Buffer_ReadyEvent(&outReady), "PJRT_Buffer_ReadyEvent");
    require(kit.outcomeOfEvent(kit.own(outReady.event)).code == PJRT_Error_Code_CANCELLED,
            "its output does not say CANCELLED");
    kit.ok(kit.extension().event_cancel(&a), "KILN_Event_Cancel of a completed execution");
    a.event = outReady.event;
    require(kit.outcomeOf(kit.extension().event_cancel(&a)).code == PJRT_Error_Code_INVALID_ARGUMENT,
            "cancelling a buffer's event is not INVALID_ARGUMENT");
  });
  kit.check("kiln extension: texts, signatures, statistics and another entry", [&] {
    const KILN_Extension& e = kit.extension();
    PJRT_Client* client = kit.client();
    PJRT_Device* device = kit.devices(client)[0];
    PJRT_LoadedExecutable* loaded = kit.compile(client, kAddOne);
    PJRT_Executable* executable = executableOf(kit, loaded);
    struct Drop {
      const PjrtKit& kit;
      PJRT_Executable* executable;
      ~Drop() {
        PJRT_Executable_Destroy_Args d{PJRT_Executable_Destroy_Args_STRUCT_SIZE, nullptr, executable};
        kit.outcomeOf(kit.api().PJRT_Executable_Destroy(&d));
      }
    } drop{kit, executable};
    KILN_Executable_Text_Args text{sizeof text, executable, "program", nullptr, 0};
    kit.ok(e.executable_text(&text), "KILN_Executable_Text(program)");
    require(std::string(text.text, text.text_size).find("@negated") != std::string::npos,
            "the text 'program' does not hold the program");
    text.name = "no such text";
    require(kit.outcomeOf(e.executable_text(&text)).code == PJRT_Error_Code_INVALID_ARGUMENT,
            "an unknown text's name is not INVALID_ARGUMENT");
    KILN_Executable_Signature_Args signature{};
    signature.struct_size = sizeof signature;
    signature.executable = executable;
    kit.ok(e.executable_signature(&signature), "KILN_Executable_Signature");
    require(std::string(signature.function, signature.function_size) == "main", "process 0 does not run @main");
    require(signature.num_parameters == 1 && signature.parameter_types[0] == PJRT_Buffer_Type_F32 &&
                signature.parameter_ranks[0] == 1 && signature.parameter_dims[0] == 4,
            "@main's parameters are not (f32[4])");
    KILN_Executable_Statistics_Args statistics{sizeof statistics, executable, nullptr, 0};
    kit.ok(e.executable_statistics(&statistics), "KILN_Executable_Statistics");
    for (size_t i = 0; i < statistics.num_values; ++i)
      require(statistics.values[i].name_size > 0, "statistic " + std::to_string(i) + " has no name");
    KILN_LoadedExecutable_WithEntry_Args with{sizeof with, loaded, "negated", nullptr};
    kit.ok(e.loaded_executable_with_entry(&with), "KILN_LoadedExecutable_WithEntry");
    PJRT_LoadedExecutable* negated = with.entry_executable;
    PJRT_LoadedExecutable_Destroy_Args dropNegated{PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE, nullptr, negated};
    const std::vector<PJRT_Buffer*> out = kit.execute(negated, {kit.floats(client, device, {1, -2, 3, -4})}, 1);
    const std::vector<float> got = kit.floatsOf(out[0]);
    kit.outcomeOf(kit.api().PJRT_LoadedExecutable_Destroy(&dropNegated));
    require(got == std::vector<float>({-1, 2, -3, 4}), "the entry @negated did not negate");
    with.entry = "nowhere";
    require(kit.outcomeOf(e.loaded_executable_with_entry(&with)).code == PJRT_Error_Code_INVALID_ARGUMENT,
            "an entry that does not exist is not INVALID_ARGUMENT");
  });
  kit.check("kiln extension: a program takes the device's infeed; the host reads its outfeed", [&] {
    const KILN_Extension& e = kit.extension();
    PJRT_Client* client = kit.client();
    PJRT_Device* device = kit.devices(client)[0];
    const int64_t dims[] = {4};
    const float four[4] = {1, 2, 3, 4};
    KILN_Device_Infeed_Args in{sizeof in, device, PJRT_Buffer_Type_F32, dims, 1, four};
    kit.ok(e.device_infeed(&in), "KILN_Device_Infeed");
    // Asked for before the program runs: served once it outfeeds.
    float got[4] = {};
    KILN_Device_Outfeed_Args out{sizeof out, device, PJRT_Buffer_Type_F32, dims, 1, got, sizeof got, nullptr};
    kit.ok(e.device_outfeed(&out), "KILN_Device_Outfeed");
    PJRT_Event* outfed = kit.own(out.event);
    const std::vector<PJRT_Buffer*> result = kit.execute(kit.compile(client, kFeeds), {}, 1);
    require(kit.floatsOf(result[0]) == std::vector<float>({2, 3, 4, 5}), "the program did not add one to its infeed");
    const PjrtKit::Outcome o = kit.outcomeOfEvent(outfed);
    require(o.code == PJRT_Error_Code_OK, "the outfeed's copy failed: " + o.message);
    require(std::vector<float>(got, got + 4) == std::vector<float>({2, 3, 4, 5}), "the outfed value differs");
    in.data = nullptr;
    require(kit.outcomeOf(e.device_infeed(&in)).code == PJRT_Error_Code_INVALID_ARGUMENT,
            "an infeed of null data is not INVALID_ARGUMENT");
    out.dst_size = 3;
    require(kit.outcomeOf(e.device_outfeed(&out)).code == PJRT_Error_Code_INVALID_ARGUMENT,
            "an outfeed into 3 bytes is not INVALID_ARGUMENT");
  });
}

}  // namespace kiln::testing
