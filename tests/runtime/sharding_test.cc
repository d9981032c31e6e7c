// Sharded programs on several devices of each plugin: partitioned on the host, run with
// one partition per device, and compared bit for bit with the same program on one
// device (the inputs are small integers, so every sum is exact whatever its order); the
// collectives the partitioner inserted are the ones the shardings require.
#include <gtest/gtest.h>

#include <random>

#include "ir/sharded_literal.h"
#include "runtime/sharded_program.h"
#include "runtime_test_util.h"

namespace kiln::runtime {
namespace {

using passes::CollectiveCounts;

// Small integers as floats, different in every element.
Literal integers(const Type& type, int salt) {
  Literal lit(type);
  for (int64_t i = 0; i < lit.numElements(); ++i) lit.setFloat(i, static_cast<double>((i * 7 + salt * 3) % 11 - 5));
  return lit;
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

struct Case {
  const char* name;
  const char* program;  // N is the number of devices
  CollectiveCounts expected;
};

// Data parallel: rows split, the weights whole; the result stays split (no collective).
constexpr const char* kRows = R"(
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}, %w: tensor<4x6xf32> {mhlo.sharding = "{replicated}"},
                %b: tensor<6xf32>) -> (tensor<8x6xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<6xf32>) -> tensor<8x6xf32>
  %z = stablehlo.add %y, %bb : tensor<8x6xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<8x6xf32>
  %r = stablehlo.maximum %z, %zero : tensor<8x6xf32>
  return %r : tensor<8x6xf32>
})";

// Megatron's MLP: the first weight split by columns, the second by rows; the hidden
// activations stay split and one all_reduce makes the output whole.
constexpr const char* kMegatron = R"(
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{replicated}"}, %w1: tensor<4x8xf32> {mhlo.sharding = "{devices=[1,N]<=[N]}"},
                %w2: tensor<8x4xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{replicated}"}) {
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<8x8xf32>
  %a = stablehlo.maximum %h, %zero : tensor<8x8xf32>
  %y = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
})";

// A split moving from rows to columns: one all_to_all.
constexpr const char* kRowsToColumns = R"(
func.func @main(%x: tensor<8x8xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) -> (tensor<8x8xf32> {mhlo.sharding = "{devices=[1,N]<=[N]}"}) {
  %y = stablehlo.negate %x : tensor<8x8xf32>
  %z = stablehlo.custom_call @Sharding(%y) {mhlo.sharding = "{devices=[1,N]<=[N]}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = stablehlo.abs %z : tensor<8x8xf32>
  return %r : tensor<8x8xf32>
})";

// Sums and maxima over a split dimension: partial results combined by all_reduce, one
// each; the transposed copy keeps its split (a result without a sharding of its own
// takes its value's, as in JAX).
constexpr const char* kReductions = R"(
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %low = stablehlo.constant dense<-100.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.reduce(%x init: %low) applies stablehlo.maximum across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %s, %m, %t : tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>
})";

// An op without a sharding rule (sort) gathers its operand; reshape carries a split.
constexpr const char* kSortAndReshape = R"(
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) -> (tensor<8x4xf32>, tensor<4x2x4xf32>) {
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = stablehlo.reshape %x : (tensor<8x4xf32>) -> tensor<4x2x4xf32>
  return %s, %r : tensor<8x4xf32>, tensor<4x2x4xf32>
})";

// Ops that keep the split dimension and change the others: no collective.
constexpr const char* kKeptDimensions = R"(
func.func @main(%x: tensor<8x6xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) -> (tensor<8x9xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) {
  %s = stablehlo.slice %x [0:8, 1:5] : (tensor<8x6xf32>) -> tensor<8x4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.pad %s, %zero, low = [0, 1], high = [0, 0], interior = [0, 0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x5xf32>
  %r = stablehlo.reverse %p, dims = [1] : tensor<8x5xf32>
  %i = stablehlo.iota dim = 1 : tensor<8x4xf32>
  %c = stablehlo.concatenate %r, %i, dim = 1 : (tensor<8x5xf32>, tensor<8x4xf32>) -> tensor<8x9xf32>
  return %c : tensor<8x9xf32>
})";

// Convolution: the images split by batch and the kernel by output features over the same
// (only) mesh axis: the result's batch split wins and the kernel is gathered; a kernel
// split by input features gives partial sums, combined by one all_reduce.
constexpr const char* kConvolutions = R"(
func.func @main(%x: tensor<4x5x5x4xf32> {mhlo.sharding = "{devices=[N,1,1,1]<=[N]}"}, %k: tensor<3x3x4x4xf32> {mhlo.sharding = "{devices=[1,1,1,N]<=[N]}"},
                %k2: tensor<3x3x4x4xf32> {mhlo.sharding = "{devices=[1,1,N,1]<=[N]}"})
    -> (tensor<4x3x3x4xf32> {mhlo.sharding = "{devices=[N,1,1,1]<=[N]}"}, tensor<4x3x3x4xf32> {mhlo.sharding = "{replicated}"}) {
  %a = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]}
       {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x5x5x4xf32>, tensor<3x3x4x4xf32>) -> tensor<4x3x3x4xf32>
  %c = stablehlo.constant dense<1.0> : tensor<4x5x5x4xf32>
  %y = stablehlo.add %c, %c : tensor<4x5x5x4xf32>
  %b = stablehlo.convolution(%y, %k2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]}
       {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x5x5x4xf32>, tensor<3x3x4x4xf32>) -> tensor<4x3x3x4xf32>
  return %a, %b : tensor<4x3x3x4xf32>, tensor<4x3x3x4xf32>
})";

// An embedding lookup: the table split by its feature columns, the ids by batch; the
// rows gathered keep both splits (no collective); an indexed (vocabulary) split would
// be gathered whole first.
constexpr const char* kEmbedding = R"(
func.func @main(%table: tensor<12x8xf32> {mhlo.sharding = "{devices=[1,N]<=[N]}"}, %v: tensor<12x8xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"})
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %ids = stablehlo.constant dense<[[3], [0], [11], [3]]> : tensor<4x1xi32>
  %rows = "stablehlo.gather"(%table, %ids) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
      slice_sizes = array<i64: 1, 8>, indices_are_sorted = false} : (tensor<12x8xf32>, tensor<4x1xi32>) -> tensor<4x8xf32>
  %vrows = "stablehlo.gather"(%v, %ids) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
      slice_sizes = array<i64: 1, 8>, indices_are_sorted = false} : (tensor<12x8xf32>, tensor<4x1xi32>) -> tensor<4x8xf32>
  return %rows, %vrows : tensor<4x8xf32>, tensor<4x8xf32>
})";

// A while loop runs split as its carries: the accumulator takes the split of what the
// body adds to it, and the sum inside the body is combined by one all_reduce there.
constexpr const char* kWhileLoop = R"(
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) -> (tensor<8x4xf32>, tensor<f32>) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %acc0 = stablehlo.constant dense<0.0> : tensor<8x4xf32>
  %s0 = stablehlo.constant dense<0.0> : tensor<f32>
  %r:3 = stablehlo.while(%i = %zero, %acc = %acc0, %s = %s0) : tensor<i64>, tensor<8x4xf32>, tensor<f32>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i64>
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %next = stablehlo.add %i, %one : tensor<i64>
    %a = stablehlo.add %acc, %x : tensor<8x4xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
    %s2 = stablehlo.add %s, %t : tensor<f32>
    stablehlo.return %next, %a, %s2 : tensor<i64>, tensor<8x4xf32>, tensor<f32>
  }
  return %r#1, %r#2 : tensor<8x4xf32>, tensor<f32>
})";

// If and case run split as their results: each branch computes its pieces.
constexpr const char* kBranches = R"(
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}, %p: tensor<i1>, %k: tensor<i32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %r = "stablehlo.if"(%p) ({
    %n = stablehlo.negate %x : tensor<8x4xf32>
    stablehlo.return %n : tensor<8x4xf32>
  }, {
    %a = stablehlo.add %x, %x : tensor<8x4xf32>
    stablehlo.return %a : tensor<8x4xf32>
  }) : (tensor<i1>) -> tensor<8x4xf32>
  %c = "stablehlo.case"(%k) ({
    stablehlo.return %r : tensor<8x4xf32>
  }, {
    %m = stablehlo.multiply %r, %x : tensor<8x4xf32>
    stablehlo.return %m : tensor<8x4xf32>
  }) : (tensor<i32>) -> tensor<8x4xf32>
  return %r, %c : tensor<8x4xf32>, tensor<8x4xf32>
})";

std::vector<Case> cases() {
  return {
      {"rows", kRows, {}},
      {"megatron", kMegatron, {.allReduce = 1}},
      {"rows_to_columns", kRowsToColumns, {.allToAll = 1}},
      {"reductions", kReductions, {.allReduce = 2}},
      {"sort_and_reshape", kSortAndReshape, {.allGather = 1}},
      {"kept_dimensions", kKeptDimensions, {}},
      {"convolutions", kConvolutions, {.allReduce = 1, .allGather = 1}},
      {"embedding", kEmbedding, {.allGather = 1}},
      {"while_loop", kWhileLoop, {.allReduce = 1}},
      {"branches", kBranches, {}},
  };
}

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
    }
  }
}

// A 2x2 Shardy mesh: the contraction split over "y" leaves partial sums over "y" only,
// combined within each "x" row (groups of 2): an all_reduce where the result is whole
// along "y", a reduce_scatter where the result is split along "y".
constexpr const char* kMesh2d = R"(
module @mesh2d {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func @main(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
                  %b: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>})
      -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
    %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %e = sdy.sharding_constraint %d <@mesh, [{"x"}, {"y"}]> : tensor<8x4xf32>
    return %c, %e : tensor<8x4xf32>, tensor<8x4xf32>
  }
})";

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

// One SGD step of a two-layer MLP (relu, mean squared error) written out by hand: the
// forward pass, the gradients, the update. SW1, SW2 and SX are the shardings of the
// weights and of the batch.
constexpr const char* kTrainStep = R"(func.func @main(%w1: tensor<8x16xf32> {mhlo.sharding = "SW1"}, %w2: tensor<16x4xf32> {mhlo.sharding = "SW2"},
                %x: tensor<32x8xf32> {mhlo.sharding = "SX"}, %y: tensor<32x4xf32> {mhlo.sharding = "SX"})
    -> (tensor<8x16xf32> {mhlo.sharding = "SW1"}, tensor<16x4xf32> {mhlo.sharding = "SW2"}, tensor<f32> {mhlo.sharding = "{replicated}"}) {
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<32x16xf32>
  %a = stablehlo.maximum %h, %zero : tensor<32x16xf32>
  %p = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0] : (tensor<32x16xf32>, tensor<16x4xf32>) -> tensor<32x4xf32>
  %d = stablehlo.subtract %p, %y : tensor<32x4xf32>
  %sq = stablehlo.multiply %d, %d : tensor<32x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x4xf32>, tensor<f32>) -> tensor<f32>
  %scale = stablehlo.constant dense<0.0078125> : tensor<f32>
  %loss = stablehlo.multiply %sum, %scale : tensor<f32>
  %two = stablehlo.constant dense<0.015625> : tensor<32x4xf32>
  %dp = stablehlo.multiply %d, %two : tensor<32x4xf32>
  %dw2 = stablehlo.dot_general %a, %dp, contracting_dims = [0] x [0] : (tensor<32x16xf32>, tensor<32x4xf32>) -> tensor<16x4xf32>
  %da = stablehlo.dot_general %dp, %w2, contracting_dims = [1] x [1] : (tensor<32x4xf32>, tensor<16x4xf32>) -> tensor<32x16xf32>
  %pos = stablehlo.compare GT, %h, %zero : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xi1>
  %dh = stablehlo.select %pos, %da, %zero : tensor<32x16xi1>, tensor<32x16xf32>
  %dw1 = stablehlo.dot_general %x, %dh, contracting_dims = [0] x [0] : (tensor<32x8xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %lr1 = stablehlo.constant dense<0.05> : tensor<8x16xf32>
  %lr2 = stablehlo.constant dense<0.05> : tensor<16x4xf32>
  %u1 = stablehlo.multiply %dw1, %lr1 : tensor<8x16xf32>
  %u2 = stablehlo.multiply %dw2, %lr2 : tensor<16x4xf32>
  %w1n = stablehlo.subtract %w1, %u1 : tensor<8x16xf32>
  %w2n = stablehlo.subtract %w2, %u2 : tensor<16x4xf32>
  return %w1n, %w2n, %loss : tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>
})";

std::string trainStep(const std::string& w1, const std::string& w2, const std::string& batch) {
  return replaceAll(replaceAll(replaceAll(kTrainStep, "SW1", w1), "SW2", w2), "SX", batch);
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
  std::vector<Literal> args;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (const Type& t : sharded.params) {
    Literal lit(t);
    for (int64_t i = 0; i < lit.numElements(); ++i) lit.setFloat(i, uniform(rng));
    args.push_back(std::move(lit));
  }
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

INSTANTIATE_TEST_SUITE_P(Plugins, ShardingTest, ::testing::ValuesIn(testing::kPlugins));

}  // namespace
}  // namespace kiln::runtime
