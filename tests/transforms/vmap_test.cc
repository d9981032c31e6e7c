// vmap against a loop over the batch calling the unbatched function, bit for bit: each
// slice of the batched results equals the function's results on the slices of the
// batched arguments (shared arguments as they are). Then vmap of grad (per-example
// gradients) and the errors.
#include <gtest/gtest.h>

#include <random>

#include "interp/interpreter.h"
#include "ir/verifier.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"
#include "transforms/autodiff.h"
#include "transforms/transform_test_util.h"
#include "transforms/vmap.h"

namespace kiln::transforms {
namespace {

using interp::HostValues;
using test_util::errorOf;
using test_util::expectSameBits;
using test_util::sliceAt;

Literal randomBatchValue(const Type& type, std::mt19937_64& rng) {
  Literal lit(type);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int64_t i = 0; i < lit.numElements(); ++i) {
    if (isFloat(type.dtype())) lit.setFloat(i, u(rng));
    else if (isComplex(type.dtype())) lit.setComplex(i, {u(rng), u(rng)});
    else lit.setInt(i, static_cast<int64_t>(rng() % 3));
  }
  return lit;
}

// vmap(@main) against a loop of @main over the batch.
void checkVmap(const std::string& text, const VmapOptions& options, const std::string& entry = "main") {
  SCOPED_TRACE(text);
  auto m = stablehlo::parseModule(text);
  Function* f = m->lookup(entry);
  ASSERT_NE(f, nullptr);
  Function& v = vmap(*m, *f, options, "batched");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  std::mt19937_64 rng(9);
  HostValues args;
  for (size_t i = 0; i < v.numParams(); ++i) args.push_back(randomBatchValue(v.param(i)->type(), rng));
  HostValues batched = in.call("batched", args);
  std::vector<int64_t> outAxes = options.outAxes;
  if (outAxes.empty()) outAxes.assign(batched.size(), 0);
  for (int64_t b = 0; b < options.size; ++b) {
    HostValues slice;
    for (size_t i = 0; i < args.size(); ++i) {
      std::optional<int64_t> axis = options.inAxes.empty() ? std::optional<int64_t>(0) : options.inAxes[i];
      slice.push_back(axis ? sliceAt(args[i].tensor(), *axis, b) : args[i].tensor());
    }
    HostValues one = in.call(entry, slice);
    for (size_t r = 0; r < one.size(); ++r)
      expectSameBits(sliceAt(batched[r].tensor(), outAxes[r], b), one[r].tensor(),
                     "result " + std::to_string(r) + " slice " + std::to_string(b));
  }
}

VmapOptions axes(std::vector<std::optional<int64_t>> in, std::vector<int64_t> out, int64_t size) {
  VmapOptions o;
  o.inAxes = std::move(in);
  o.outAxes = std::move(out);
  o.size = size;
  return o;
}

TEST(VmapTest, ElementwiseWithSharedAndBatchedOperands) {
  checkVmap(R"(
    func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>, %p: tensor<f32>) -> (tensor<3xf32>, tensor<3xi1>) {
      %a = stablehlo.multiply %x, %y : tensor<3xf32>
      %t = stablehlo.tanh %a : tensor<3xf32>
      %c = stablehlo.compare GT, %t, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
      %s = stablehlo.select %c, %t, %x : tensor<3xi1>, tensor<3xf32>
      %e = chlo.erf %s : tensor<3xf32> -> tensor<3xf32>
      %k = stablehlo.clamp %p, %e, %p : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
      %m = stablehlo.maximum %k, %e : tensor<3xf32>
      return %m, %c : tensor<3xf32>, tensor<3xi1>
    })",
            axes({0, std::nullopt, std::nullopt}, {0, 0}, 4));
  // A batched scalar against shared tensors, batch axes other than 0.
  checkVmap(R"(
    func.func @main(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<2x3xf32> {
      %c = stablehlo.clamp %p, %x, %x : (tensor<f32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %b = stablehlo.broadcast_in_dim %p, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
      %s = stablehlo.add %c, %b : tensor<2x3xf32>
      return %s : tensor<2x3xf32>
    })",
            axes({std::nullopt, 0}, {2}, 5));
  checkVmap(R"(
    func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %e = stablehlo.exponential %x : tensor<2x3xf32>
      return %e : tensor<2x3xf32>
    })",
            axes({1}, {1}, 4));
}

TEST(VmapTest, DataMovement) {
  checkVmap(R"(
    func.func @main(%x: tensor<4x6xf32>, %y: tensor<2x6xf32>, %v: tensor<f32>) -> (tensor<6x4xf32>, tensor<2x3xf32>, tensor<6x6xf32>, tensor<7x10xf32>, tensor<3x2x4xf32>, tensor<24xf32>) {
      %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
      %s = stablehlo.slice %x [1:4:2, 0:6:2] : (tensor<4x6xf32>) -> tensor<2x3xf32>
      %c = stablehlo.concatenate %x, %y, dim = 0 : (tensor<4x6xf32>, tensor<2x6xf32>) -> tensor<6x6xf32>
      %p = stablehlo.pad %x, %v, low = [1, 0], high = [2, -1], interior = [0, 1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<7x10xf32>
      %b = stablehlo.broadcast_in_dim %y, dims = [1, 0] : (tensor<2x6xf32>) -> tensor<6x2x4xf32>
      %bs = stablehlo.slice %b [0:3, 0:2, 0:4] : (tensor<6x2x4xf32>) -> tensor<3x2x4xf32>
      %r = stablehlo.reshape %x : (tensor<4x6xf32>) -> tensor<24xf32>
      %v2 = stablehlo.reverse %r, dims = [0] : tensor<24xf32>
      return %t, %s, %c, %p, %bs, %v2 : tensor<6x4xf32>, tensor<2x3xf32>, tensor<6x6xf32>, tensor<7x10xf32>, tensor<3x2x4xf32>, tensor<24xf32>
    })",
            axes({0, std::nullopt, std::nullopt}, {0, 1, 2, 0, 1, 0}, 3));
  // Shared starts (one past the end, clamped) into batched operands.
  checkVmap(R"(
    func.func @main(%x: tensor<5x4xf32>, %u: tensor<2x2xf32>) -> (tensor<2x3xf32>, tensor<5x4xf32>) {
      %i = stablehlo.constant dense<4> : tensor<i64>
      %j = stablehlo.constant dense<1> : tensor<i64>
      %s = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 3] : (tensor<5x4xf32>, tensor<i64>, tensor<i64>) -> tensor<2x3xf32>
      %d = stablehlo.dynamic_update_slice %x, %u, %j, %i : (tensor<5x4xf32>, tensor<2x2xf32>, tensor<i64>, tensor<i64>) -> tensor<5x4xf32>
      return %s, %d : tensor<2x3xf32>, tensor<5x4xf32>
    })",
            axes({0, std::nullopt}, {0, 0}, 3));
}

// Embedding lookups and their gradients: gather and scatter with a batched table, batched
// indices, or both.
TEST(VmapTest, GatherAndScatter) {
  const char* text = R"(
    func.func @main(%table: tensor<5x3xf32>, %ids: tensor<4x1xi32>, %u: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<5x3xf32>) {
      %g = "stablehlo.gather"(%table, %ids) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
      %s = "stablehlo.scatter"(%table, %ids, %u) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %r = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %r : tensor<f32>
      }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
      return %g, %s : tensor<4x3xf32>, tensor<5x3xf32>
    })";
  checkVmap(text, axes({0, std::nullopt, std::nullopt}, {}, 3));
  checkVmap(text, axes({std::nullopt, 1, 0}, {1, 2}, 3));
  checkVmap(text, axes({2, 0, 1}, {0, 1}, 2));
}

TEST(VmapTest, DotsAndReductions) {
  const char* text = R"(
    func.func @main(%x: tensor<2x3x4xf32>, %y: tensor<2x4x5xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<2x4xf32>) {
      %d = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%d init: %zero) applies stablehlo.add across dimensions = [0, 2] : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<3xf32>
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
      return %d, %s, %m : tensor<2x3x5xf32>, tensor<3xf32>, tensor<2x4xf32>
    })";
  checkVmap(text, axes({0, 0}, {}, 3));               // both batched
  checkVmap(text, axes({2, std::nullopt}, {1, 0, 2}, 3));  // lhs only
  checkVmap(text, axes({std::nullopt, 1}, {3, 1, 0}, 3));  // rhs only
  checkVmap(R"(
    func.func @main(%x: tensor<3x4xf32>, %y: tensor<4xf32>) -> tensor<3xf32> {
      %d = stablehlo.dot %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
      return %d : tensor<3xf32>
    })",
            axes({std::nullopt, 0}, {}, 2));
}

// map batches through its computation applied to whole tensors (bit for bit: the same
// elementwise ops).
TEST(VmapTest, MapThroughItsDecomposition) {
  checkVmap(R"(
    func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
      %m = "stablehlo.map"(%x, %y) ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %p = stablehlo.multiply %a, %b : tensor<f32>
          %r = stablehlo.maximum %p, %a : tensor<f32>
          stablehlo.return %r : tensor<f32>
      }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      return %m : tensor<3xf32>
    })",
            axes({0, std::nullopt}, {}, 2));
}

// Batch norm has no batching rule of its own: vmap batches its decomposition. The
// decomposition's sums fold in the order every reduce does, the interpreter's kernel
// row by row, so the two agree to rounding, not bit for bit.
TEST(VmapTest, BatchNormThroughItsDecomposition) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<4x3xf32>, %scale: tensor<3xf32>, %offset: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
      %y:3 = "stablehlo.batch_norm_training"(%x, %scale, %offset) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
      return %y#0, %y#1, %y#2 : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
    })");
  vmap(*m, *m->lookup("main"), axes({0, std::nullopt, 0}, {}, 2), "batched");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  std::mt19937_64 rng(9);
  HostValues args{randomBatchValue(Type::tensor(DType::F32, {2, 4, 3}), rng), randomBatchValue(Type::tensor(DType::F32, {3}), rng),
                  randomBatchValue(Type::tensor(DType::F32, {2, 3}), rng)};
  HostValues batched = in.call("batched", args);
  for (int64_t b = 0; b < 2; ++b) {
    HostValues one = in.call("main", {sliceAt(args[0].tensor(), 0, b), args[1].tensor(), sliceAt(args[2].tensor(), 0, b)});
    for (size_t r = 0; r < one.size(); ++r) {
      Literal got = sliceAt(batched[r].tensor(), 0, b);
      ASSERT_EQ(got.type(), one[r].tensor().type());
      for (int64_t i = 0; i < got.numElements(); ++i)
        EXPECT_NEAR(got.floatAt(i), one[r].tensor().floatAt(i), 1e-5 * std::max(1.0, std::abs(got.floatAt(i))))
            << "result " << r << " slice " << b << " element " << i;
    }
  }
}

// Loops with a shared trip count run as they are; a loop whose condition differs per
// slice runs until every slice is done, finished slices holding their carries. A batched
// predicate or index runs every branch and selects per slice.
// Starts that differ per slice become a gather and a scatter; they run from -1 past the
// last fitting start, so the clamping of both ops is checked.
TEST(VmapTest, DynamicSlicesWithBatchedStarts) {
  const char* program = R"(
    func.func @main(%x: tensor<5x4xf32>, %i: tensor<i32>, %j: tensor<i32>, %u: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<5x4xf32>) {
      %three = stablehlo.constant dense<3> : tensor<i32>
      %two = stablehlo.constant dense<2> : tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i3 = stablehlo.multiply %i, %three : tensor<i32>
      %ii = stablehlo.subtract %i3, %one : tensor<i32>
      %j2 = stablehlo.multiply %j, %two : tensor<i32>
      %jj = stablehlo.subtract %j2, %one : tensor<i32>
      %s = stablehlo.dynamic_slice %x, %ii, %jj, sizes = [2, 3] : (tensor<5x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
      %d = stablehlo.dynamic_update_slice %x, %u, %ii, %jj : (tensor<5x4xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x4xf32>
      return %s, %d : tensor<2x3xf32>, tensor<5x4xf32>
    })";
  checkVmap(program, axes({std::nullopt, 0, 0, std::nullopt}, {}, 6));
  checkVmap(program, axes({1, 0, std::nullopt, 0}, {1, 0}, 5));
  checkVmap(program, axes({0, std::nullopt, 0, 1}, {}, 4));
}

TEST(VmapTest, OpsThroughTheirStableHloDecompositions) {
  checkVmap(test_util::kOpsThroughStableHloDecompositions, axes({1, std::nullopt}, {}, 3));
  checkVmap(test_util::kOpsThroughStableHloDecompositions, axes({0, 2}, {1, 0, 2, 0, 1, 0, 2, 0, 3}, 2));
}

// Ops that take leading batch dimensions (cholesky, triangular_solve) or pass values
// through (optimization_barrier, tuple, get_tuple_element), bitcast_convert to a narrower
// type, and get_dimension_size (the same for every slice).
TEST(VmapTest, LinalgTuplesAndBarriers) {
  checkVmap(R"(
    func.func @main(%x: tensor<3x3xf64>, %b: tensor<3x2xf64>) -> (tensor<3x3xf64>, tensor<3x2xf64>, tensor<3x2x2xf32>, tensor<i32>) {
      %g = stablehlo.dot_general %x, %x, contracting_dims = [1] x [1] : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
      %four = stablehlo.constant dense<[[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]]> : tensor<3x3xf64>
      %a = stablehlo.add %g, %four : tensor<3x3xf64>
      %l = stablehlo.cholesky %a, lower = true : tensor<3x3xf64>
      %s = "stablehlo.triangular_solve"(%l, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<3x3xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
      %o:2 = stablehlo.optimization_barrier %l, %s : tensor<3x3xf64>, tensor<3x2xf64>
      %t = stablehlo.tuple %o#0, %o#1 : tuple<tensor<3x3xf64>, tensor<3x2xf64>>
      %e = stablehlo.get_tuple_element %t[1] : (tuple<tensor<3x3xf64>, tensor<3x2xf64>>) -> tensor<3x2xf64>
      %bits = stablehlo.bitcast_convert %e : (tensor<3x2xf64>) -> tensor<3x2x2xf32>
      %n = "stablehlo.get_dimension_size"(%x) {dimension = 1 : i64} : (tensor<3x3xf64>) -> tensor<i32>
      return %o#0, %e, %bits, %n : tensor<3x3xf64>, tensor<3x2xf64>, tensor<3x2x2xf32>, tensor<i32>
    })",
            axes({0, std::nullopt}, {}, 3));
}

// rng_bit_generator with a state per slice runs slice by slice: each slice's bits and
// next state are what the op gives that state alone.
TEST(VmapTest, RandomBitsSliceBySlice) {
  checkVmap(R"(
    func.func @main(%s: tensor<2xui64>, %x: tensor<4xf32>) -> (tensor<2xui64>, tensor<4xui32>, tensor<4xf32>) {
      %s1, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
      %f = stablehlo.convert %bits : (tensor<4xui32>) -> tensor<4xf32>
      %m = stablehlo.multiply %f, %x : tensor<4xf32>
      return %s1, %bits, %m : tensor<2xui64>, tensor<4xui32>, tensor<4xf32>
    })",
            axes({1, 0}, {}, 3));
}

TEST(VmapTest, ControlFlow) {
  const char* loops = R"(
    func.func @main(%x: tensor<2xf32>, %a: tensor<f32>) -> (tensor<2xf32>, tensor<f32>, tensor<i64>) {
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %r:2 = stablehlo.while(%i = %zero, %y = %x) : tensor<i64>, tensor<2xf32>
      cond {
        %three = stablehlo.constant dense<3> : tensor<i64>
        %c = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %n = stablehlo.add %i, %one : tensor<i64>
        %b = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<2xf32>
        %m = stablehlo.multiply %y, %b : tensor<2xf32>
        %s = stablehlo.sine %m : tensor<2xf32>
        stablehlo.return %n, %s : tensor<i64>, tensor<2xf32>
      }
      %q:2 = stablehlo.while(%v = %a, %k = %zero) : tensor<f32>, tensor<i64>
      cond {
        %ten = stablehlo.constant dense<10.0> : tensor<f32>
        %c = stablehlo.compare LT, %v, %ten : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %t = stablehlo.constant dense<1.5> : tensor<f32>
        %w = stablehlo.multiply %v, %t : tensor<f32>
        %p = stablehlo.add %w, %t : tensor<f32>
        %n = stablehlo.add %k, %one : tensor<i64>
        stablehlo.return %p, %n : tensor<f32>, tensor<i64>
      }
      return %r#1, %q#0, %q#1 : tensor<2xf32>, tensor<f32>, tensor<i64>
    })";
  checkVmap(loops, axes({0, std::nullopt}, {}, 3));  // the second loop is shared
  checkVmap(loops, axes({std::nullopt, 0}, {}, 4));  // per-slice trip counts
  const char* branches = R"(
    func.func @main(%x: tensor<2xf32>, %p: tensor<i1>, %k: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %r = "stablehlo.if"(%p) ({
        %e = stablehlo.exponential %x : tensor<2xf32>
        stablehlo.return %e : tensor<2xf32>
      }, {
        %n = stablehlo.negate %x : tensor<2xf32>
        stablehlo.return %n : tensor<2xf32>
      }) : (tensor<i1>) -> tensor<2xf32>
      %c = "stablehlo.case"(%k) ({
        stablehlo.return %x : tensor<2xf32>
      }, {
        %t = stablehlo.tanh %x : tensor<2xf32>
        stablehlo.return %t : tensor<2xf32>
      }) : (tensor<i32>) -> tensor<2xf32>
      return %r, %c : tensor<2xf32>, tensor<2xf32>
    })";
  checkVmap(branches, axes({0, std::nullopt, std::nullopt}, {}, 3));  // shared selectors
  checkVmap(branches, axes({0, 0, 0}, {}, 5));                        // indices 0..2: 2 is past the end
}

// Pooling, its gradient (select_and_scatter) and sort.
TEST(VmapTest, WindowsAndSort) {
  checkVmap(R"(
    func.func @main(%x: tensor<4x6xf32>, %g: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xi32>) {
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %m = "stablehlo.reduce_window"(%x, %ninf) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %r = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %r : tensor<f32>
      }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x3xf32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = "stablehlo.select_and_scatter"(%x, %g, %zero) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }, {
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %r = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %r : tensor<f32>
      }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<4x6xf32>
      %i = stablehlo.iota dim = 1 : tensor<4x6xi32>
      %o:2 = "stablehlo.sort"(%x, %i) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
        %t = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %t : tensor<i1>
      }) {dimension = 1 : i64, is_stable = true} : (tensor<4x6xf32>, tensor<4x6xi32>) -> (tensor<4x6xf32>, tensor<4x6xi32>)
      return %m, %s, %o#0, %o#1 : tensor<2x3xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xi32>
    })",
            axes({1, std::nullopt}, {2, 0, 1, 0}, 3));
}

// Per-example gradients: vmap of grad over the examples, the weights shared.
TEST(VmapTest, PerExampleGradients) {
  const char* text = R"(
    func.func @loss(%w: tensor<3x2xf32>, %x: tensor<3xf32>) -> tensor<f32> {
      %h = stablehlo.dot_general %x, %w, contracting_dims = [0] x [0] : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<2xf32>
      %t = stablehlo.tanh %h : tensor<2xf32>
      %s = stablehlo.multiply %t, %t : tensor<2xf32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %l = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
      return %l : tensor<f32>
    })";
  auto m = stablehlo::parseModule(text);
  grad(*m, *m->lookup("loss"), {}, "main");
  std::string withGrad = stablehlo::printModule(*m);
  checkVmap(withGrad, axes({std::nullopt, 0}, {}, 4));
}


TEST(VmapTest, ClearErrors) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      %s = "stablehlo.sort"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %c = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }) {dimension = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
      return %s : tensor<3xf32>
    })");
  Function& f = *m->lookup("main");
  // A custom call with side effects would repeat them once per slice.
  auto effect = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
      %c = "stablehlo.custom_call"(%x) {call_target_name = "log_it", has_side_effect = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
      return %c : tensor<3x3xf32>
    })");
  EXPECT_EQ(errorOf([&] { vmap(*effect, *effect->lookup("main"), axes({0}, {}, 2), "v"); }),
            "unsupported: unsupported: vmap of stablehlo.custom_call @log_it (a custom call with side effects, line 3)");
  EXPECT_EQ(errorOf([&] { vmap(*m, f, axes({2}, {}, 2), "v"); }),
            "usage: vmap of @main: in_axes 2 does not fit parameter 0 (tensor<3xf32>)");
  EXPECT_EQ(errorOf([&] { vmap(*m, f, axes({0, 0}, {}, 2), "v"); }),
            "usage: vmap of @main: in_axes has 2 entries for 1 parameters");
  EXPECT_EQ(errorOf([&] { vmap(*m, f, axes({0}, {}, 0), "v"); }), "usage: vmap of @main: the batch size must be positive, got 0");
}

// Convolutions with the lhs batched (the batch folds into the convolution's batch), the
// kernel batched (into its output features) and both (into feature groups, or batch
// groups where the batch is grouped already), each under dimension numbers other than
// the default, without groups, with feature groups and with batch groups.
TEST(VmapTest, Convolution) {
  const char* plain = R"(
    func.func @main(%x: tensor<3x6x2x5xf32>, %k: tensor<2x4x3x3xf32>) -> tensor<3x2x4x4xf32> {
      %c = stablehlo.convolution(%x, %k) dim_numbers = [f, 0, b, 1]x[1, o, 0, i]->[0, b, 1, f], window = {stride = [2, 1], pad = [[1, 0], [0, 1]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<3x6x2x5xf32>, tensor<2x4x3x3xf32>) -> tensor<3x2x4x4xf32>
      return %c : tensor<3x2x4x4xf32>
    })";
  const char* featureGroups = R"(
    func.func @main(%x: tensor<2x5x4xf32>, %k: tensor<2x3x6xf32>) -> tensor<6x5x2xf32> {
      %c = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[i, 0, o]->[f, 0, b], window = {pad = [[1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x5x4xf32>, tensor<2x3x6xf32>) -> tensor<6x5x2xf32>
      return %c : tensor<6x5x2xf32>
    })";
  const char* batchGroups = R"(
    func.func @main(%x: tensor<3x4x5xf32>, %k: tensor<2x4x3xf32>) -> tensor<2x4x4xf32> {
      %c = stablehlo.convolution(%x, %k) dim_numbers = [f, b, 0]x[0, o, i]->[b, f, 0], window = {} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<3x4x5xf32>, tensor<2x4x3xf32>) -> tensor<2x4x4xf32>
      return %c : tensor<2x4x4xf32>
    })";
  for (const char* text : {plain, featureGroups, batchGroups}) {
    checkVmap(text, axes({1, std::nullopt}, {}, 3));  // lhs only
    checkVmap(text, axes({std::nullopt, 2}, {}, 3));  // kernel only
    checkVmap(text, axes({0, 3}, {1}, 2));             // both
  }
  // A depthwise convolution (a group per feature) of a batched image and kernel.
  checkVmap(R"(
    func.func @main(%x: tensor<1x3x4x4xf32>, %k: tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32> {
      %c = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 3 : i64} : (tensor<1x3x4x4xf32>, tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32>
      return %c : tensor<1x3x3x3xf32>
    })",
            axes({0, 0}, {}, 4));
}

// fft transforms the trailing dimensions, so the batch in front passes through: every
// fft type, one and more transformed dimensions, batch axes inside the operand.
TEST(VmapTest, Fft) {
  checkVmap(R"(
    func.func @main(%x: tensor<3x4xcomplex<f32>>, %y: tensor<2x8xf32>, %z: tensor<3x5xcomplex<f32>>) -> (tensor<3x4xcomplex<f32>>, tensor<3x4xcomplex<f32>>, tensor<2x5xcomplex<f32>>, tensor<3x8xf32>) {
      %f = stablehlo.fft %x, type = FFT, length = [4] : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
      %i = stablehlo.fft %x, type = IFFT, length = [3, 4] : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
      %r = stablehlo.fft %y, type = RFFT, length = [2, 8] : (tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>>
      %b = stablehlo.fft %z, type = IRFFT, length = [8] : (tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32>
      return %f, %i, %r, %b : tensor<3x4xcomplex<f32>>, tensor<3x4xcomplex<f32>>, tensor<2x5xcomplex<f32>>, tensor<3x8xf32>
    })",
            axes({1, 0, 2}, {0, 2, 1, 0}, 3));
}

}  // namespace
}  // namespace kiln::transforms
