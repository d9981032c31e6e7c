// Sharding propagation and SPMD partitioning on the IR (the runtime's sharding_test runs
// the partitioned programs on devices): what propagation decides for values the program
// leaves open, the notes it writes, and what partitioning refuses.
#include "passes/sharding/spmd_partition.h"

#include <gtest/gtest.h>

#include "ir/sharding_attrs.h"
#include "ir/verifier.h"
#include "passes/sharding/propagation.h"
#include "stablehlo/parser.h"
#include "support/error.h"

namespace kiln::passes {
namespace {

std::unique_ptr<Module> parse(const std::string& text) {
  return stablehlo::parseModule(SourceBuffer::fromString("p.mlir", text));
}

using Axes = std::vector<std::string>;

TEST(ShardingPropagationTest, SplitsFlowForwardAndBackward) {
  // Only %x is annotated: the add carries its split to %y (backward, a parameter) and to
  // the result; the transpose moves it to dimension 1.
  auto m = parse(R"(
    func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}, %y: tensor<8x4xf32>) -> tensor<4x8xf32> {
      %s = stablehlo.add %x, %y : tensor<8x4xf32>
      %t = stablehlo.transpose %s, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
      return %t : tensor<4x8xf32>
    })");
  const Function& fn = *m->lookup("main");
  ShardingPlan plan = propagateShardings(*m, fn);
  EXPECT_EQ(plan.numDevices(), 2);
  EXPECT_EQ(plan.of(fn.param(1)).dims[0], Axes{"_axis_0"});
  EXPECT_EQ(plan.results[0].dims[1], Axes{"_axis_0"});
  EXPECT_TRUE(plan.results[0].dims[0].empty());
}

TEST(ShardingPropagationTest, ConflictsChooseTheCheaperResharding) {
  // One axis, wanted by the rows of %a (128 bytes) and the columns of %b (512 bytes): the
  // product is split like %b, and %a is the one gathered; the choice is noted.
  auto m = parse(R"(
    func.func @main(%a: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"},
                    %b: tensor<4x32xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}"}) -> tensor<8x32xf32> {
      %p = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
      return %p : tensor<8x32xf32>
    })");
  const Function& fn = *m->lookup("main");
  ShardingPlan plan = propagateShardings(*m, fn);
  EXPECT_TRUE(plan.results[0].dims[0].empty());
  EXPECT_EQ(plan.results[0].dims[1], Axes{"_axis_0"});
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("stablehlo.dot_general (line 4): a dimension of size 8 stays whole: {\"_axis_0\"} already "
                               "splits a dimension of more bytes (128 bytes offered it here)"),
            std::string::npos)
      << plan.notes[0];
  // Within one dimension, equal costs go to the first operand's split.
  auto within = parse(R"(
    func.func @main(%x: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                    %y: tensor<8x1xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}) -> tensor<8x8xf32> {
      %b = stablehlo.broadcast_in_dim %y, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x8xf32>
      %c = stablehlo.reshape %b : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %s = stablehlo.add %x, %c : tensor<8x8xf32>
      return %s : tensor<8x8xf32>
    })");
  ShardingPlan p2 = propagateShardings(*within, *within->lookup("main"));
  EXPECT_EQ(p2.results[0].dims[0], (Axes{"_axis_0", "_axis_1"}));
}

TEST(ShardingPropagationTest, GspmdMeshesOfOneDeviceOrderMeetOnTheirRefinement) {
  // A 4-way split and a 2x2 one over the same iota order: the common mesh is 2x2 and the
  // 4-way split is both of its axes.
  auto m = parse(R"(
    func.func @main(%x: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                    %y: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) -> tensor<8x8xf32> {
      %s = stablehlo.add %x, %y : tensor<8x8xf32>
      return %s : tensor<8x8xf32>
    })");
  const Function& fn = *m->lookup("main");
  ShardingPlan plan = propagateShardings(*m, fn);
  ASSERT_EQ(plan.mesh.axes.size(), 2u);
  EXPECT_EQ(plan.of(fn.param(0)).dims[0], (Axes{"_axis_0", "_axis_1"}));
  EXPECT_EQ(plan.of(fn.param(1)).dims[1], Axes{"_axis_1"});
}

TEST(ShardingPropagationTest, WindowsSplitWhereHalosComeFromNeighbours) {
  // A "same" 3-row window over 8 rows split in 4 (pieces of 2) needs one row from each
  // neighbour: the rows stay split. A 7-row window would need 3 from each: the rows of
  // the second convolution stay whole, with a note; a "valid" convolution (6 rows out of
  // 8) reads a different span on each device: whole, silently.
  auto m = parse(R"(
    func.func @main(%x: tensor<1x8x1xf32> {mhlo.sharding = "{devices=[1,4,1]<=[4]}"}, %k: tensor<3x1x1xf32>, %k7: tensor<7x1x1xf32>)
        -> (tensor<1x8x1xf32>, tensor<1x8x1xf32>, tensor<1x6x1xf32>) {
      %a = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[1, 1]]}
           {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x1xf32>, tensor<3x1x1xf32>) -> tensor<1x8x1xf32>
      %b = stablehlo.convolution(%x, %k7) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[3, 3]]}
           {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x1xf32>, tensor<7x1x1xf32>) -> tensor<1x8x1xf32>
      %c = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {}
           {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x1xf32>, tensor<3x1x1xf32>) -> tensor<1x6x1xf32>
      return %a, %b, %c : tensor<1x8x1xf32>, tensor<1x8x1xf32>, tensor<1x6x1xf32>
    })");
  const Function& fn = *m->lookup("main");
  ShardingPlan plan = propagateShardings(*m, fn);
  EXPECT_EQ(plan.results[0].dims[1], Axes{"_axis_0"});
  EXPECT_TRUE(plan.results[1].dims[1].empty());
  EXPECT_TRUE(plan.results[2].dims[1].empty());
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("stablehlo.convolution (line 6): a dimension of size 8 stays whole: split over "
                               "{\"_axis_0\"}, its windows would read beyond the neighbouring pieces"),
            std::string::npos)
      << plan.notes[0];
  // Partitioned, the first convolution's pieces are widened by a row from each side.
  PartitionReport r = partitionModule(*m, "main");
  verifyModule(*m);
  EXPECT_EQ(r.collectives.collectivePermute, 2);
}

TEST(SpmdPartitionTest, ThePartitionedProgramVerifiesAndKeepsItsShardings) {
  auto m = parse(R"(
    func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> (tensor<f32> {mhlo.sharding = "{replicated}"}) {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
      return %s : tensor<f32>
    })");
  PartitionReport r = partitionModule(*m, "main");
  ASSERT_TRUE(r.partitioned);
  verifyModule(*m);
  const Function& fn = *m->lookup("main");
  EXPECT_EQ(fn.param(0)->type().str(), "tensor<4x4xf32>");
  EXPECT_EQ(findAttr(fn.argAttrs[0], kHloShardingAttr).asString(), "{devices=[2,1]<=[2]}");
  EXPECT_EQ(r.collectives.allReduce, 1);
  EXPECT_DOUBLE_EQ(r.collectives.bytesSent, 4.0);  // 2 (g-1)/g of 4 bytes
  EXPECT_TRUE(findAttr(m->attrs, kPartitionedAttr));
  // Partitioning again leaves the per-device program as it is.
  EXPECT_FALSE(partitionModule(*m, "main").partitioned);
}

// The message of what partitioning `text` throws, and its kind.
std::pair<ErrorKind, std::string> failure(const std::string& text) {
  try {
    auto m = parse(text);
    partitionModule(*m, "main");
  } catch (const Error& e) {
    return {e.kind(), e.message()};
  }
  return {ErrorKind::Internal, "no error"};
}

TEST(SpmdPartitionTest, WhatItRefusesIsUnsupported) {
  auto uneven = failure(R"(
    func.func @main(%x: tensor<7x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> tensor<7x4xf32> {
      return %x : tensor<7x4xf32>
    })");
  EXPECT_EQ(uneven.first, ErrorKind::Unsupported);
  EXPECT_NE(uneven.second.find("dimension 0 of tensor<7x4xf32> split into 2 uneven pieces"), std::string::npos) << uneven.second;
  auto manual = failure(R"(
    func.func @main(%x: tensor<8xf32> {mhlo.sharding = "{manual}"}) -> tensor<8xf32> {
      return %x : tensor<8xf32>
    })");
  EXPECT_EQ(manual.first, ErrorKind::Unsupported);
  EXPECT_NE(manual.second.find("manual sharding"), std::string::npos) << manual.second;
  auto collective = failure(R"(
    func.func @main(%x: tensor<8xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> tensor<8xf32> {
      %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<8xf32>) -> tensor<8xf32>
      return %r : tensor<8xf32>
    })");
  EXPECT_EQ(collective.first, ErrorKind::Unsupported);
  EXPECT_NE(collective.second.find("collectives of its own (stablehlo.all_reduce (line 3))"), std::string::npos)
      << collective.second;
  auto meshes = failure(R"(
    func.func @main(%x: tensor<6x6xf32> {mhlo.sharding = "{devices=[2,3]<=[6]}"}, %y: tensor<6x6xf32> {mhlo.sharding = "{devices=[3,2]<=[6]}"}) -> tensor<6x6xf32> {
      return %x : tensor<6x6xf32>
    })");
  EXPECT_EQ(meshes.first, ErrorKind::Unsupported);
  EXPECT_NE(meshes.second.find("no common refinement"), std::string::npos) << meshes.second;
}

}  // namespace
}  // namespace kiln::passes
