// The kiln extension of kiln's plugins' PJRT table (include/kiln/pjrt/kiln_extension.h):
// found on the extension chain, and each of its entries over a real program: execution
// labels and time limits, cancellation, statistics and texts, another entry of a
// compiled module, infeed and outfeed, kiln's compile settings as env_option_overrides.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kiln/pjrt/kiln_extension.h"
#include "runtime/pjrt_test_util.h"
#include "runtime/runtime_test_util.h"

namespace {

class PjrtKilnExtensionTest : public kiln_test::PjrtTest {
 protected:
  void SetUp() override {
    PjrtTest::SetUp();
    kiln_ = kiln_pjrt_extension(api_);
    ASSERT_NE(kiln_, nullptr) << "no kiln extension on the chain";
  }

  // Starts `executable` on one device with the extension's controls; the outputs and the
  // completion event (not awaited).
  std::pair<std::vector<PJRT_Buffer*>, PJRT_Event*> start(PJRT_LoadedExecutable* executable,
                                                          std::vector<PJRT_Buffer*> arguments, size_t numOutputs,
                                                          const char* label, int64_t timeLimitNs) {
    std::vector<PJRT_Buffer*> outputs(numOutputs);
    PJRT_Buffer* const* argumentLists[1] = {arguments.data()};
    PJRT_Buffer** outputLists[1] = {outputs.data()};
    PJRT_Event* done[1] = {nullptr};
    PJRT_ExecuteOptions options{};
    options.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
    PJRT_LoadedExecutable_Execute_Args execute{};
    execute.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
    execute.executable = executable;
    execute.options = &options;
    execute.argument_lists = argumentLists;
    execute.num_devices = 1;
    execute.num_args = arguments.size();
    execute.output_lists = outputLists;
    execute.device_complete_events = done;
    KILN_Execute_Args args{};
    args.struct_size = sizeof args;
    args.execute = &execute;
    args.label = label;
    args.time_limit_ns = timeLimitNs;
    EXPECT_EQ(take(kiln_->execute(&args)).second, "");
    return {outputs, done[0]};
  }

  PJRT_Buffer* i64(PJRT_Client* client, int64_t value) {
    return fromHost(client, nullptr, &value, PJRT_Buffer_Type_S64, {});
  }

  const KILN_Extension* kiln_ = nullptr;
};

TEST_P(PjrtKilnExtensionTest, IsOnTheChainWithItsVersion) {
  EXPECT_EQ(kiln_->version, KILN_PJRT_EXTENSION_VERSION);
  EXPECT_GE(kiln_->base.struct_size, sizeof(KILN_Extension));
  EXPECT_NE(kiln_->executable_deserialize_with_source, nullptr);
}

TEST_P(PjrtKilnExtensionTest, TimeLimitsLabelsAndCancellation) {
  PJRT_Client* client = createClient(1);
  PJRT_LoadedExecutable* slow = compile(client, kiln::runtime::testing::kSlowProgram, "");
  ASSERT_NE(slow, nullptr);
  std::vector<float> ramp(256, 0.5f);
  PJRT_Buffer* x = fromHost(client, nullptr, ramp.data(), PJRT_Buffer_Type_F32, {256});
  PJRT_Buffer* hours = i64(client, int64_t{1} << 40);
  // Stopped by its time limit; the failure names the label.
  auto [outputs, done] = start(slow, {hours, x}, 1, "model.cc:12:5", 100'000'000);
  std::string failure = await(done);
  EXPECT_NE(failure.find("time limit exceeded"), std::string::npos) << failure;
  EXPECT_NE(failure.find("model.cc:12:5"), std::string::npos) << failure;
  destroy(outputs[0]);
  // Cancelled through its completion event.
  auto [more, running] = start(slow, {hours, x}, 1, nullptr, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  KILN_Event_Cancel_Args cancel{sizeof cancel, running};
  ASSERT_EQ(take(kiln_->event_cancel(&cancel)).second, "");
  EXPECT_NE(await(running).find("cancelled"), std::string::npos);
  destroy(more[0]);
  for (PJRT_Buffer* b : {x, hours}) destroy(b);
  destroy(slow);
  destroy(client);
}

TEST_P(PjrtKilnExtensionTest, StatisticsTextsAndAnotherEntry) {
  PJRT_Client* client = createClient(1);
  const char* twoEntries = R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = stablehlo.add %x, %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func public @negated(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = stablehlo.negate %x : tensor<3xf32>
  return %y : tensor<3xf32>
})";
  PJRT_LoadedExecutable* loaded = compile(client, twoEntries, "");
  ASSERT_NE(loaded, nullptr);
  PJRT_LoadedExecutable_GetExecutable_Args get{PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, nullptr, loaded};
  ASSERT_EQ(take(api_->PJRT_LoadedExecutable_GetExecutable(&get)).second, "");
  KILN_Executable_Statistics_Args statistics{sizeof statistics, get.executable, nullptr, 0};
  ASSERT_EQ(take(kiln_->executable_statistics(&statistics)).second, "");
  KILN_Executable_Text_Args text{sizeof text, get.executable, "no such text", nullptr, 0};
  const auto [code, message] = take(kiln_->executable_text(&text));
  EXPECT_EQ(code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(message.find("no text 'no such text' of this executable (it has: program"), std::string::npos) << message;
  // The signature of the one process: f32[3] -> f32[3].
  KILN_Executable_Signature_Args signature{};
  signature.struct_size = sizeof signature;
  signature.executable = get.executable;
  ASSERT_EQ(take(kiln_->executable_signature(&signature)).second, "");
  EXPECT_EQ(std::string(signature.function, signature.function_size), "main");
  ASSERT_EQ(signature.num_parameters, 1u);
  ASSERT_EQ(signature.num_results, 1u);
  EXPECT_EQ(signature.parameter_types[0], PJRT_Buffer_Type_F32);
  EXPECT_EQ(signature.result_types[0], PJRT_Buffer_Type_F32);
  ASSERT_EQ(signature.parameter_ranks[0], 1u);
  EXPECT_EQ(signature.parameter_dims[0], 3);
  signature.process = 1;
  EXPECT_EQ(take(kiln_->executable_signature(&signature)).first, PJRT_Error_Code_INVALID_ARGUMENT);
  if (std::string(GetParam().name) == "cpu") {  // the interpreter keeps neither
    bool kernels = false;
    for (size_t i = 0; i < statistics.num_values; ++i)
      kernels |= std::string(statistics.values[i].name, statistics.values[i].name_size) == "native_kernels" &&
                 statistics.values[i].float_value > 0;
    EXPECT_TRUE(kernels);
    text.name = "report";
    ASSERT_EQ(take(kiln_->executable_text(&text)).second, "");
    EXPECT_GT(text.text_size, 0u);
  }
  PJRT_Executable_Destroy_Args drop{PJRT_Executable_Destroy_Args_STRUCT_SIZE, nullptr, get.executable};
  ASSERT_EQ(take(api_->PJRT_Executable_Destroy(&drop)).second, "");

  KILN_LoadedExecutable_WithEntry_Args with{sizeof with, loaded, "negated", nullptr};
  ASSERT_EQ(take(kiln_->loaded_executable_with_entry(&with)).second, "");
  PJRT_Buffer* x = floats(client, device(client, 0), {1, -2, 3});
  auto results = execute(with.entry_executable, {{x}}, 1);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{-1, 2, -3}));
  destroy(results[0][0]);
  destroy(x);
  destroy(with.entry_executable);
  destroy(loaded);
  destroy(client);
}

// kiln's compile settings arrive as env_option_overrides: here the entry function, in
// compile options written as jaxlib writes them (one map entry of field 7).
TEST_P(PjrtKilnExtensionTest, CompileSettingsAsOptionOverrides) {
  PJRT_Client* client = createClient(1);
  const char* program = R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func public @twice(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = stablehlo.add %x, %x : tensor<3xf32>
  return %y : tensor<3xf32>
})";
  const std::string key = "kiln.entry", value = "twice";
  const std::string override = std::string("\x0a") + static_cast<char>(value.size()) + value;  // string_field
  const std::string entry = std::string("\x0a") + static_cast<char>(key.size()) + key + "\x12" +
                            static_cast<char>(override.size()) + override;
  const std::string options = std::string("\x3a") + static_cast<char>(entry.size()) + entry;
  PJRT_LoadedExecutable* loaded = compile(client, program, options);
  ASSERT_NE(loaded, nullptr);
  PJRT_Buffer* x = floats(client, device(client, 0), {1, 2, 3});
  auto results = execute(loaded, {{x}}, 1);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{2, 4, 6}));
  destroy(results[0][0]);
  destroy(x);
  destroy(loaded);
  destroy(client);
}

TEST_P(PjrtKilnExtensionTest, InfeedAndOutfeed) {
  PJRT_Client* client = createClient(1);
  const char* program = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = stablehlo.after_all : !stablehlo.token
  %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  %s = stablehlo.add %x, %v#0 : tensor<2xf32>
  %t2 = "stablehlo.outfeed"(%s, %v#1) : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  return %s : tensor<2xf32>
})";
  PJRT_LoadedExecutable* loaded = compile(client, program, "");
  ASSERT_NE(loaded, nullptr);
  PJRT_Device* only = device(client, 0);
  const float fed[2] = {10, 20};
  const int64_t dims[1] = {2};
  KILN_Device_Infeed_Args infeed{sizeof infeed, only, PJRT_Buffer_Type_F32, dims, 1, fed};
  ASSERT_EQ(take(kiln_->device_infeed(&infeed)).second, "");
  PJRT_Buffer* x = floats(client, only, {1, 2});
  auto results = execute(loaded, {{x}}, 1);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{11, 22}));
  float out[2] = {0, 0};
  KILN_Device_Outfeed_Args outfeed{sizeof outfeed, only, PJRT_Buffer_Type_F32, dims, 1, out, sizeof out, nullptr};
  ASSERT_EQ(take(kiln_->device_outfeed(&outfeed)).second, "");
  EXPECT_EQ(await(outfeed.event), "");
  EXPECT_EQ(out[0], 11);
  EXPECT_EQ(out[1], 22);
  destroy(results[0][0]);
  destroy(x);
  destroy(loaded);
  destroy(client);
}

// A serialized executable loaded with its source text (which its runtime errors quote)
// runs as the compiled one.
TEST_P(PjrtKilnExtensionTest, DeserializedWithItsSourceText) {
  PJRT_Client* client = createClient(1);
  PJRT_LoadedExecutable* loaded = compile(client, kiln::runtime::testing::kAddOne, "");
  ASSERT_NE(loaded, nullptr);
  PJRT_LoadedExecutable_GetExecutable_Args get{PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, nullptr, loaded};
  ASSERT_EQ(take(api_->PJRT_LoadedExecutable_GetExecutable(&get)).second, "");
  PJRT_Executable_Serialize_Args serialize{};
  serialize.struct_size = PJRT_Executable_Serialize_Args_STRUCT_SIZE;
  serialize.executable = get.executable;
  ASSERT_EQ(take(api_->PJRT_Executable_Serialize(&serialize)).second, "");
  const std::string text = kiln::runtime::testing::kAddOne;
  KILN_Executable_DeserializeWithSource_Args load{sizeof load, client, serialize.serialized_bytes,
                                                  serialize.serialized_bytes_size, "add_one.mlir", text.data(),
                                                  text.size(), nullptr};
  ASSERT_EQ(take(kiln_->executable_deserialize_with_source(&load)).second, "");
  serialize.serialized_executable_deleter(serialize.serialized_executable);
  PJRT_Buffer* x = floats(client, device(client, 0), {1, 2, 3, 4});
  auto results = execute(load.loaded_executable, {{x}}, 1);
  EXPECT_EQ(floatsOf(results[0][0]), (std::vector<float>{2, 3, 4, 5}));
  destroy(results[0][0]);
  destroy(x);
  PJRT_Executable_Destroy_Args drop{PJRT_Executable_Destroy_Args_STRUCT_SIZE, nullptr, get.executable};
  ASSERT_EQ(take(api_->PJRT_Executable_Destroy(&drop)).second, "");
  destroy(load.loaded_executable);
  destroy(loaded);
  destroy(client);
}

INSTANTIATE_TEST_SUITE_P(Plugins, PjrtKilnExtensionTest, kiln_test::kPlugins,
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
