// Sharded programs on several devices of each plugin: partitioned on the host, run with
// one partition per device, and compared bit for bit with the same program on one
// device (the inputs are small integers, so every sum is exact whatever its order); the
// collectives the partitioner inserted are the ones the shardings require.
#include <gtest/gtest.h>

#include <random>

#include "ir/sharded_literal.h"
#include "runtime/sharded_program.h"
#include "runtime_test_util.h"
#include "sharding_programs.h"

namespace kiln::runtime {
namespace {

using passes::CollectiveCounts;

class ShardingTest : public ::testing::TestWithParam<const char*> {};

// Runs `text` sharded and on one device; the results must agree bit for bit.
ShardedProgram expectAgreement(const Client& client, const std::string& text, const std::vector<Literal>& args) {
  ShardedProgram sharded = partitionProgram(text, "test");
  std::vector<Literal> got = runSharded(client, sharded, args);
  Executable whole = client.compile(text);
  std::vector<Buffer> held;
  std::vector<const Buffer*> list;
  for (const Literal& a : args) held.push_back(client.bufferFromHost(a, client.devices()[0]));
  for (const Buffer& b : held) list.push_back(&b);
  Executable::Execution run = whole.execute(list, client.devices()[0]);
  run.done.await();
  EXPECT_EQ(got.size(), run.outputs.size());
  for (size_t r = 0; r < std::min(got.size(), run.outputs.size()); ++r) EXPECT_EQ(got[r], run.outputs[r].toLiteral()) << "result " << r;
  return sharded;
}


TEST_P(ShardingTest, PartitionedRunsAgreeWithOneDevice) {
  Client client(Plugin::load(GetParam()), ClientOptions{4, 0});
  for (const Case& c : cases()) {
    for (int n : {1, 2, 4}) {
      SCOPED_TRACE(std::string(c.name) + " on " + std::to_string(n) + " devices");
      std::string text = replaceAll(c.program, "N", std::to_string(n));
      std::vector<Literal> args;
      for (const Type& t : partitionProgram(text, c.name).params) args.push_back(integers(t, static_cast<int>(args.size())));
      ShardedProgram sharded = expectAgreement(client, text, args);
      ASSERT_TRUE(sharded.report.partitioned);
      EXPECT_EQ(sharded.report.numDevices, n);
      const CollectiveCounts& counts = sharded.report.collectives;
      const CollectiveCounts expected = n == 1 ? CollectiveCounts{} : c.expected;
      EXPECT_EQ(counts.allReduce, expected.allReduce) << sharded.text;
      EXPECT_EQ(counts.allGather, expected.allGather) << sharded.text;
      EXPECT_EQ(counts.allToAll, expected.allToAll) << sharded.text;
      EXPECT_EQ(counts.reduceScatter, expected.reduceScatter) << sharded.text;
      EXPECT_EQ(counts.collectivePermute, expected.collectivePermute) << sharded.text;
    }
  }
}

TEST_P(ShardingTest, ATwoDimensionalShardyMesh) {
  Client client(Plugin::load(GetParam()), ClientOptions{4, 0});
  Type a = Type::tensor(DType::F32, {8, 8}), b = Type::tensor(DType::F32, {8, 4});
  ShardedProgram sharded = expectAgreement(client, kMesh2d, {integers(a, 1), integers(b, 2)});
  EXPECT_EQ(sharded.report.numDevices, 4);
  EXPECT_EQ(sharded.report.collectives.allReduce, 1) << sharded.text;
  EXPECT_EQ(sharded.report.collectives.reduceScatter, 1) << sharded.text;
  EXPECT_EQ(sharded.report.collectives.total(), 2) << sharded.text;
  // Groups along "y" only: devices (0, 1) and (2, 3).
  EXPECT_NE(sharded.text.find("replica_groups = dense<[[0, 1], [2, 3]]>"), std::string::npos) << sharded.text;
  // The per-device program keeps Shardy's form for its parameters.
  EXPECT_NE(sharded.text.find("sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>"), std::string::npos) << sharded.text;
}

// Ten steps sharded and ten on one device reach the same weights (within rounding: the
// partial gradients add in another order).
void trainTenSteps(const Client& client, const std::string& text, int expectedAllReduces) {
  ShardedProgram sharded = partitionProgram(text, "step");
  EXPECT_EQ(sharded.report.collectives.allReduce, expectedAllReduces) << sharded.text;
  EXPECT_EQ(sharded.report.collectives.total(), expectedAllReduces) << sharded.text;
  ShardedExecutable step(client, sharded);
  ShardedExecutable single(client, partitionProgram(replaceAll(text, "mhlo.sharding", "unused.sharding"), "step"));
  ASSERT_EQ(single.program().report.numDevices, 1);
  std::vector<Literal> args = uniformArgs(sharded.params, 7);
  std::vector<Literal> a = args, b = args;
  double firstLoss = 0, lastLoss = 0;
  for (int s = 0; s < 10; ++s) {
    std::vector<Literal> ra = step.run(a), rb = single.run(b);
    a[0] = ra[0], a[1] = ra[1], b[0] = rb[0], b[1] = rb[1];
    EXPECT_NEAR(ra[2].floatAt(0), rb[2].floatAt(0), 1e-5 * std::abs(rb[2].floatAt(0)));
    (s == 0 ? firstLoss : lastLoss) = rb[2].floatAt(0);
  }
  EXPECT_LT(lastLoss, firstLoss);  // it trains
  for (int w = 0; w < 2; ++w)
    for (int64_t i = 0; i < a[w].numElements(); ++i) EXPECT_NEAR(a[w].floatAt(i), b[w].floatAt(i), 1e-5) << "weight " << w << " element " << i;
}

TEST_P(ShardingTest, DataParallelTrainingMatchesOneDevice) {
  Client client(Plugin::load(GetParam()), ClientOptions{2, 0});
  // The gradients of both weights and the loss: three all_reduces, nothing else.
  trainTenSteps(client, trainStep("{replicated}", "{replicated}", "{devices=[2,1]<=[2]}"), 3);
}

TEST_P(ShardingTest, TensorParallelTrainingMatchesOneDevice) {
  Client client(Plugin::load(GetParam()), ClientOptions{2, 0});
  // Megatron: w1 by columns, w2 by rows; the only collective is the forward all_reduce
  // of the output (the backward pass stays split).
  trainTenSteps(client, trainStep("{devices=[1,2]<=[2]}", "{devices=[2,1]<=[2]}", "{replicated}"), 1);
}

// shard_map as JAX exports it: @Sharding then @SPMDFullToShardShape into each device's
// own code (here a column sum finished by an explicit all_reduce, JAX's psum, and a
// square), then @SPMDShardToFullShape back to global values. The same numbers as the
// plain program on one device.
constexpr const char* kShardMap = R"(
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"})
    -> (tensor<4xf32> {mhlo.sharding = "{replicated}"}, tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
  %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = "stablehlo.all_reduce"(%2) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
  %4 = stablehlo.custom_call @Sharding(%3) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
  %5 = stablehlo.custom_call @SPMDShardToFullShape(%4) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
  %d = stablehlo.multiply %1, %1 : tensor<4x4xf32>
  %6 = stablehlo.custom_call @Sharding(%d) {mhlo.sharding = "{manual}"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %7 = stablehlo.custom_call @SPMDShardToFullShape(%6) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<4x4xf32>) -> tensor<8x4xf32>
  return %5, %7 : tensor<4xf32>, tensor<8x4xf32>
})";

constexpr const char* kShardMapMeaning = R"(
func.func @main(%x: tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
  %d = stablehlo.multiply %x, %x : tensor<8x4xf32>
  return %s, %d : tensor<4xf32>, tensor<8x4xf32>
})";

TEST_P(ShardingTest, AShardMapRunsItsOwnCodeOnEachDevice) {
  Client client(Plugin::load(GetParam()), ClientOptions{2, 0});
  ShardedProgram sharded = partitionProgram(kShardMap, "shard_map");
  EXPECT_EQ(sharded.report.numDevices, 2);
  EXPECT_EQ(sharded.report.collectives.total(), 0) << sharded.text;  // the program's own all_reduce only
  EXPECT_NE(sharded.text.find("stablehlo.all_reduce"), std::string::npos);
  EXPECT_EQ(sharded.text.find("SPMD"), std::string::npos) << sharded.text;
  Literal x = integers(Type::tensor(DType::F32, {8, 4}), 3);
  std::vector<Literal> got = runSharded(client, sharded, {x});
  ShardedProgram plain = partitionProgram(kShardMapMeaning, "meaning");
  std::vector<Literal> want = runSharded(client, plain, {x});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], want[0]);
  EXPECT_EQ(got[1], want[1]);
  // On one device it says what it needs.
  testing::expectError(
      [&] {
        Executable exe = client.compile(kShardMap);
        Buffer arg = client.bufferFromHost(x, client.devices()[0]);
        exe.execute({&arg}, client.devices()[0]).done.await();
      },
      ErrorKind::Unsupported, "custom_call @SPMDFullToShardShape outside a partitioned program");
}

// The same shard_map as Shardy writes it (sdy.manual_computation): imported as the form
// above, it computes the same.
constexpr const char* kManualComputation = R"(
module @manual {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%x: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<4xf32>, tensor<8x4xf32>) {
    %0:2 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}]>, <@mesh, [{"x"}, {}]>]
        manual_axes={"x"} (%piece: tensor<4x4xf32>) {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%piece init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %t = "stablehlo.all_reduce"(%s) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %u = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %u : tensor<f32>
      }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
          use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
      %d = stablehlo.multiply %piece, %piece : tensor<4x4xf32>
      sdy.return %t, %d : tensor<4xf32>, tensor<4x4xf32>
    } : (tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>)
    return %0#0, %0#1 : tensor<4xf32>, tensor<8x4xf32>
  }
})";

TEST_P(ShardingTest, ShardysManualComputation) {
  Client client(Plugin::load(GetParam()), ClientOptions{2, 0});
  ShardedProgram sharded = partitionProgram(kManualComputation, "manual");
  EXPECT_EQ(sharded.report.numDevices, 2);
  EXPECT_EQ(sharded.report.collectives.total(), 0) << sharded.text;
  Literal x = integers(Type::tensor(DType::F32, {8, 4}), 3);
  std::vector<Literal> got = runSharded(client, sharded, {x});
  std::vector<Literal> want = runSharded(client, partitionProgram(kShardMapMeaning, "meaning"), {x});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], want[0]);
  EXPECT_EQ(got[1], want[1]);
  // A body still split over an axis that is not manual is refused.
  testing::expectError([&] { partitionProgram(replaceAll(kManualComputation, "manual_axes={\"x\"}", "manual_axes={}"), "free"); },
                       ErrorKind::Unsupported, "splits over the free axis \"x\"");
}

INSTANTIATE_TEST_SUITE_P(Plugins, ShardingTest, ::testing::ValuesIn(testing::kPlugins));

}  // namespace
}  // namespace kiln::runtime
