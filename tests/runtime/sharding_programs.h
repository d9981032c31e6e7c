// The sharded programs the runtime's sharding tests run: in one process on several
// devices (sharding_test.cc) and over MPI ranks (mpi_sharding_test.cc). Each covers a
// sharding pattern; N stands for the number of devices.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "passes/sharding/resharding.h"

namespace kiln::runtime {

using passes::CollectiveCounts;

// Small integers as floats, different in every element.
inline Literal integers(const Type& type, int salt) {
  Literal lit(type);
  for (int64_t i = 0; i < lit.numElements(); ++i) lit.setFloat(i, static_cast<double>((i * 7 + salt * 3) % 11 - 5));
  return lit;
}

// Values uniform in [-1, 1) for `types`, from `seed` (the training steps' starting point).
inline std::vector<Literal> uniformArgs(const std::vector<Type>& types, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<Literal> args;
  for (const Type& t : types) {
    Literal lit(t);
    for (int64_t i = 0; i < lit.numElements(); ++i) lit.setFloat(i, uniform(rng));
    args.push_back(std::move(lit));
  }
  return args;
}

inline std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

struct Case {
  const char* name;
  const char* program;  // N is the number of devices
  CollectiveCounts expected;
};

// Data parallel: rows split, the weights whole; the result stays split (no collective).
inline constexpr const char* kRows = R"(
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
inline constexpr const char* kMegatron = R"(
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{replicated}"}, %w1: tensor<4x8xf32> {mhlo.sharding = "{devices=[1,N]<=[N]}"},
                %w2: tensor<8x4xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{replicated}"}) {
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<8x8xf32>
  %a = stablehlo.maximum %h, %zero : tensor<8x8xf32>
  %y = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
})";

// A split moving from rows to columns: one all_to_all.
inline constexpr const char* kRowsToColumns = R"(
func.func @main(%x: tensor<8x8xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) -> (tensor<8x8xf32> {mhlo.sharding = "{devices=[1,N]<=[N]}"}) {
  %y = stablehlo.negate %x : tensor<8x8xf32>
  %z = stablehlo.custom_call @Sharding(%y) {mhlo.sharding = "{devices=[1,N]<=[N]}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = stablehlo.abs %z : tensor<8x8xf32>
  return %r : tensor<8x8xf32>
})";

// Sums and maxima over a split dimension: partial results combined by all_reduce, one
// each; the transposed copy keeps its split (a result without a sharding of its own
// takes its value's, as in JAX).
inline constexpr const char* kReductions = R"(
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %low = stablehlo.constant dense<-100.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.reduce(%x init: %low) applies stablehlo.maximum across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %s, %m, %t : tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>
})";

// An op without a sharding rule (sort) gathers its operand; reshape carries a split.
inline constexpr const char* kSortAndReshape = R"(
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
inline constexpr const char* kKeptDimensions = R"(
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
inline constexpr const char* kConvolutions = R"(
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

// Convolutions and pooling over images split by height: each device's rows need a few
// rows of its neighbours' (halos), one collective_permute each way — none for the
// strided convolution's first rows, which fall where the previous device's windows end.
// The first convolution is dilated ("same" padding, a window 5 rows tall); the second
// halves the height; the max pool ("same", 3x3, of values below zero) reads -inf past
// the ends, not zeros; the depthwise one (a feature group per channel) has halos too.
inline constexpr const char* kHaloConvolutions = R"(
func.func @main(%x: tensor<2x8x6x3xf32> {mhlo.sharding = "{devices=[1,N,1,1]<=[N]}"}, %k: tensor<3x3x3x4xf32>, %k2: tensor<3x3x4x2xf32>,
                %kd: tensor<3x3x1x3xf32>)
    -> (tensor<2x8x6x4xf32> {mhlo.sharding = "{devices=[1,N,1,1]<=[N]}"}, tensor<2x4x3x2xf32> {mhlo.sharding = "{devices=[1,N,1,1]<=[N]}"},
        tensor<2x8x6x4xf32> {mhlo.sharding = "{devices=[1,N,1,1]<=[N]}"}, tensor<2x8x6x3xf32> {mhlo.sharding = "{devices=[1,N,1,1]<=[N]}"}) {
  %a = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [1, 1]], rhs_dilate = [2, 1]}
       {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x6x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x6x4xf32>
  %b = stablehlo.convolution(%a, %k2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]]}
       {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x6x4xf32>, tensor<3x3x4x2xf32>) -> tensor<2x4x3x2xf32>
  %sq = stablehlo.multiply %a, %a : tensor<2x8x6x4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<2x8x6x4xf32>
  %sq1 = stablehlo.add %sq, %one : tensor<2x8x6x4xf32>
  %below = stablehlo.negate %sq1 : tensor<2x8x6x4xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = "stablehlo.reduce_window"(%below, %ninf) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.maximum %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3, 3, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>}
      : (tensor<2x8x6x4xf32>, tensor<f32>) -> tensor<2x8x6x4xf32>
  %dw = stablehlo.convolution(%x, %kd) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]}
       {batch_group_count = 1 : i64, feature_group_count = 3 : i64} : (tensor<2x8x6x3xf32>, tensor<3x3x1x3xf32>) -> tensor<2x8x6x3xf32>
  return %a, %b, %m, %dw : tensor<2x8x6x4xf32>, tensor<2x4x3x2xf32>, tensor<2x8x6x4xf32>, tensor<2x8x6x3xf32>
})";

// An embedding lookup: the table split by its feature columns, the ids by batch; the
// rows gathered keep both splits (no collective); an indexed (vocabulary) split would
// be gathered whole first.
inline constexpr const char* kEmbedding = R"(
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
inline constexpr const char* kWhileLoop = R"(
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
inline constexpr const char* kBranches = R"(
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

// The gradient of an embedding lookup: rows added into a zero table at the ids (a
// scatter), the hidden dimension split with the table's; and a batched scatter whose
// batch is split. Each device scatters into its own columns or batch: no collective.
inline constexpr const char* kScatter = R"(
func.func @main(%upd: tensor<4x8xf32> {mhlo.sharding = "{devices=[1,N]<=[N]}"}, %b: tensor<4x3xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"},
                %bu: tensor<4x2xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"})
    -> (tensor<12x8xf32> {mhlo.sharding = "{devices=[1,N]<=[N]}"}, tensor<4x3xf32> {mhlo.sharding = "{devices=[N,1]<=[N]}"}) {
  %ids = stablehlo.constant dense<[[3], [0], [11], [3]]> : tensor<4x1xi32>
  %zero = stablehlo.constant dense<0.0> : tensor<12x8xf32>
  %grad = "stablehlo.scatter"(%zero, %ids, %upd) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
      indices_are_sorted = false, unique_indices = false} : (tensor<12x8xf32>, tensor<4x1xi32>, tensor<4x8xf32>) -> tensor<12x8xf32>
  %at = stablehlo.constant dense<[[[0], [2]], [[1], [1]], [[2], [0]], [[0], [1]]]> : tensor<4x2x1xi32>
  %put = "stablehlo.scatter"(%b, %at, %bu) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [], inserted_window_dims = [1], input_batching_dims = [0],
      scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>,
      indices_are_sorted = false, unique_indices = false} : (tensor<4x3xf32>, tensor<4x2x1xi32>, tensor<4x2xf32>) -> tensor<4x3xf32>
  return %grad, %put : tensor<12x8xf32>, tensor<4x3xf32>
})";

inline std::vector<Case> cases() {
  return {
      {"rows", kRows, {}},
      {"megatron", kMegatron, {.allReduce = 1}},
      {"rows_to_columns", kRowsToColumns, {.allToAll = 1}},
      {"reductions", kReductions, {.allReduce = 2}},
      {"sort_and_reshape", kSortAndReshape, {.allGather = 1}},
      {"kept_dimensions", kKeptDimensions, {}},
      {"convolutions", kConvolutions, {.allReduce = 1, .allGather = 1}},
      {"halo_convolutions", kHaloConvolutions, {.collectivePermute = 7}},
      {"embedding", kEmbedding, {.allGather = 1}},
      {"scatter", kScatter, {}},
      {"while_loop", kWhileLoop, {.allReduce = 1}},
      {"branches", kBranches, {}},
  };
}

// A 2x2 Shardy mesh: the contraction split over "y" leaves partial sums over "y" only,
// combined within each "x" row (groups of 2): an all_reduce where the result is whole
// along "y", a reduce_scatter where the result is split along "y".
inline constexpr const char* kMesh2d = R"(
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

// One SGD step of a two-layer MLP (relu, mean squared error) written out by hand: the
// forward pass, the gradients, the update. SW1, SW2 and SX are the shardings of the
// weights and of the batch.
inline constexpr const char* kTrainStep = R"(func.func @main(%w1: tensor<8x16xf32> {mhlo.sharding = "SW1"}, %w2: tensor<16x4xf32> {mhlo.sharding = "SW2"},
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

inline std::string trainStep(const std::string& w1, const std::string& w2, const std::string& batch) {
  return replaceAll(replaceAll(replaceAll(kTrainStep, "SW1", w1), "SW2", w2), "SX", batch);
}

}  // namespace kiln::runtime
