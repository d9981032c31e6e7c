// The collectives' rules, checked across processes. A per-process function @f runs on
// every process of a grid under interpreter.run_parallel (a driver function built beside
// it), and so do its jvp, vjp and vmap. The collectives make @f one function of every
// process's inputs to every process's results, so that is what is checked:
// - jvp against central finite differences in f64, every process's inputs moved at once;
// - the transposes by the exact consistency <u, J·v> = <Jᵀ·u, v>, both inner products
//   summed over every process (a collective's transpose sends cotangents to other
//   processes, so only the grid's sums pair up, not one process's);
// - vmap against a loop over the batch, bit for bit, on every process.
// The groups are out of order and the permutations are not involutions, so a transpose
// that kept the groups' order or the pairs' direction wrong would fail. Then the bodies
// that are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "interp/interpreter.h"
#include "ir/builder.h"
#include "ir/ops/testing.h"
#include "ir/verifier.h"
#include "stablehlo/parser.h"
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

struct Grid {
  int64_t replicas = 1, partitions = 1;
  size_t processes() const { return static_cast<size_t>(replicas * partitions); }
};

// @name: `fn` on every process of `grid` by interpreter.run_parallel; it takes every
// process's arguments and returns every process's results, process after process
// (replica-major, as run_parallel flattens them).
void addGridDriver(Module& m, const Function& fn, Grid grid, const std::string& name) {
  std::vector<Attribute> rows;
  for (int64_t r = 0; r < grid.replicas; ++r)
    rows.push_back(Attribute::array(std::vector<Attribute>(static_cast<size_t>(grid.partitions), Attribute::symbol(fn.name()))));
  const TypeList each = fn.paramTypes(), eachResult = fn.resultTypes();
  TypeList params, results;
  for (size_t k = 0; k < grid.processes(); ++k) {
    params.insert(params.end(), each.begin(), each.end());
    results.insert(results.end(), eachResult.begin(), eachResult.end());
  }
  buildFunction(m, name, params, [&](Builder& b, const std::vector<Value*>& args) {
    return b.create(ops::InterpreterRunParallel, args, {{"programs", Attribute::array(rows)}}, {}, results)->results();
  });
}

// One random value per type, for every process: the grid driver's arguments.
HostValues randomValues(const TypeList& types, size_t processes, std::mt19937_64& rng) {
  HostValues out;
  for (size_t k = 0; k < processes; ++k)
    for (const Type& t : types) out.push_back(test_util::randomLiteral(t, rng, {-1.5, 1.5}));
  return out;
}

// Process k's part of a grid driver's values, `n` per process, starting at `first` of them.
HostValues part(const HostValues& all, size_t k, size_t n, size_t first, size_t count) {
  return HostValues(all.begin() + static_cast<ptrdiff_t>(k * n + first),
                    all.begin() + static_cast<ptrdiff_t>(k * n + first + count));
}

// Joins per-process lists: for every process, its part of each list in turn.
HostValues interleave(const std::vector<std::pair<const HostValues*, size_t>>& lists, size_t processes) {
  HostValues out;
  for (size_t k = 0; k < processes; ++k)
    for (const auto& [values, n] : lists) {
      HostValues p = part(*values, k, n, 0, n);
      out.insert(out.end(), p.begin(), p.end());
    }
  return out;
}

double innerProduct(const HostValues& a, const HostValues& b) {
  double s = 0;
  for (size_t k = 0; k < a.size(); ++k)
    for (int64_t i = 0; i < a[k].tensor().numElements(); ++i) s += a[k].tensor().floatAt(i) * b[k].tensor().floatAt(i);
  return s;
}

// jvp and vjp of @f (f64 parameters and results) on `grid`, at a few random points.
void checkGridDerivatives(const std::string& text, Grid grid) {
  SCOPED_TRACE(text);
  auto m = stablehlo::parseModule(text);
  Function* f = m->lookup("f");
  ASSERT_NE(f, nullptr);
  addGridDriver(*m, *f, grid, "grid");
  addGridDriver(*m, jvp(*m, *f, "f_jvp"), grid, "grid_jvp");
  addGridDriver(*m, vjp(*m, *f, "f_vjp"), grid, "grid_vjp");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  std::mt19937_64 rng(7);
  const size_t n = grid.processes(), np = f->numParams(), nr = f->resultTypes().size();
  for (int point = 0; point < 2; ++point) {
    HostValues x = randomValues(f->paramTypes(), n, rng), v = randomValues(f->paramTypes(), n, rng),
               u = randomValues(f->resultTypes(), n, rng);
    HostValues j = in.call("grid_jvp", interleave({{&x, np}, {&v, np}}, n));
    const double h = 1e-5;
    HostValues plus, minus;
    for (size_t k = 0; k < x.size(); ++k) {
      Literal p = x[k].tensor(), q = x[k].tensor();
      for (int64_t i = 0; i < p.numElements(); ++i) {
        p.setFloat(i, p.floatAt(i) + h * v[k].tensor().floatAt(i));
        q.setFloat(i, q.floatAt(i) - h * v[k].tensor().floatAt(i));
      }
      plus.push_back(p);
      minus.push_back(q);
    }
    HostValues fp = in.call("grid", plus), fm = in.call("grid", minus);
    HostValues tangents;
    for (size_t k = 0; k < n; ++k)
      for (size_t r = 0; r < nr; ++r) {
        const Literal& t = j[k * 2 * nr + nr + r].tensor();
        tangents.push_back(t);
        for (int64_t i = 0; i < t.numElements(); ++i) {
          double fd = (fp[k * nr + r].tensor().floatAt(i) - fm[k * nr + r].tensor().floatAt(i)) / (2 * h);
          EXPECT_NEAR(t.floatAt(i), fd, 1e-6 * (1 + std::abs(fd)))
              << "process " << k << " result " << r << " element " << i;
        }
      }
    HostValues g = in.call("grid_vjp", interleave({{&x, np}, {&u, nr}}, n));
    HostValues cotangents;
    for (size_t k = 0; k < n; ++k) {
      HostValues c = part(g, k, nr + np, nr, np);
      cotangents.insert(cotangents.end(), c.begin(), c.end());
    }
    double forward = innerProduct(u, tangents), reverse = innerProduct(cotangents, v);
    EXPECT_NEAR(forward, reverse, 1e-10 * (1 + std::abs(forward)));
  }
}

// vmap(@f) on `grid` against @f on `grid` once per slice of the batch, bit for bit.
void checkGridVmap(const std::string& text, Grid grid, std::vector<std::optional<int64_t>> inAxes, int64_t size) {
  SCOPED_TRACE(text);
  auto m = stablehlo::parseModule(text);
  Function* f = m->lookup("f");
  ASSERT_NE(f, nullptr);
  VmapOptions options;
  options.inAxes = std::move(inAxes);
  options.size = size;
  Function& batched = vmap(*m, *f, options, "f_batched");
  addGridDriver(*m, *f, grid, "grid");
  addGridDriver(*m, batched, grid, "grid_batched");
  ASSERT_NO_THROW(verifyModule(*m));
  interp::Interpreter in(*m);
  std::mt19937_64 rng(11);
  const size_t n = grid.processes(), np = f->numParams(), nr = f->resultTypes().size();
  HostValues args = randomValues(batched.paramTypes(), n, rng);
  HostValues all = in.call("grid_batched", args);
  for (int64_t b = 0; b < size; ++b) {
    HostValues slices;
    for (size_t k = 0; k < args.size(); ++k) {
      std::optional<int64_t> axis = options.inAxes[k % np];
      slices.push_back(axis ? sliceAt(args[k].tensor(), *axis, b) : args[k].tensor());
    }
    HostValues one = in.call("grid", slices);
    for (size_t k = 0; k < one.size(); ++k)
      expectSameBits(sliceAt(all[k].tensor(), 0, b), one[k].tensor(),
                     "process " + std::to_string(k / nr) + " result " + std::to_string(k % nr) + " slice " +
                         std::to_string(b));
  }
}

// A variadic sum over groups whose members are not neighbours, between nonlinear ops
// (the transpose reads residuals on both sides of it).
const char* kAllReduce = R"(
  func.func @f(%x: tensor<3xf64>, %y: tensor<2x2xf64>) -> (tensor<3xf64>, tensor<2x2xf64>) {
    %s = stablehlo.sine %x : tensor<3xf64>
    %r:2 = "stablehlo.all_reduce"(%s, %y) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %0 = stablehlo.add %a, %b : tensor<f64>
      stablehlo.return %0 : tensor<f64>
    }) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : (tensor<3xf64>, tensor<2x2xf64>) -> (tensor<3xf64>, tensor<2x2xf64>)
    %m = stablehlo.multiply %r#0, %x : tensor<3xf64>
    %q = stablehlo.multiply %r#1, %y : tensor<2x2xf64>
    return %m, %q : tensor<3xf64>, tensor<2x2xf64>
  })";

// With a channel and no global ids a group spans every partition: [[0, 1]] on a 2x2
// grid is one group of four.
const char* kAllReduceAcrossPartitions = R"(
  func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
    %e = stablehlo.exponential %x : tensor<2xf64>
    %r = "stablehlo.all_reduce"(%e) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %0 = stablehlo.add %b, %a : tensor<f64>
      stablehlo.return %0 : tensor<f64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2xf64>) -> tensor<2xf64>
    %t = stablehlo.tanh %r : tensor<2xf64>
    return %t : tensor<2xf64>
  })";

// all_gather and reduce_scatter, each the other's transpose, over groups in reverse
// order (the member order decides where each operand lands).
const char* kGatherScatter = R"(
  func.func @f(%x: tensor<2x3xf64>) -> (tensor<2x6xf64>, tensor<1x3xf64>) {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[1, 0], [3, 2]]> : tensor<2x2xi64>} : (tensor<2x3xf64>) -> tensor<2x6xf64>
    %t = stablehlo.tanh %g : tensor<2x6xf64>
    %e = stablehlo.multiply %x, %x : tensor<2x3xf64>
    %rs = "stablehlo.reduce_scatter"(%e) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %0 = stablehlo.add %a, %b : tensor<f64>
      stablehlo.return %0 : tensor<f64>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[1, 0], [3, 2]]> : tensor<2x2xi64>} : (tensor<2x3xf64>) -> tensor<1x3xf64>
    %c = stablehlo.cosine %rs : tensor<1x3xf64>
    return %t, %c : tensor<2x6xf64>, tensor<1x3xf64>
  })";

// On a 2x2 grid: a gather across replicas and partitions (groups of four: the result
// size is given), then a scatter over flattened ids.
const char* kGatherScatterOnGrid = R"(
  func.func @f(%x: tensor<1x2xf64>) -> tensor<2x2xf64> {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<1x2xf64>) -> tensor<4x2xf64>
    %s = stablehlo.sine %g : tensor<4x2xf64>
    %rs = "stablehlo.reduce_scatter"(%s) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %0 = stablehlo.add %a, %b : tensor<f64>
      stablehlo.return %0 : tensor<f64>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[3, 0], [1, 2]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 0>, use_global_device_ids} : (tensor<4x2xf64>) -> tensor<2x2xf64>
    %m = stablehlo.multiply %rs, %rs : tensor<2x2xf64>
    return %m : tensor<2x2xf64>
  })";

// A variadic all_to_all over a group out of order, split and concat dimensions apart.
const char* kAllToAll = R"(
  func.func @f(%x: tensor<2x3xf64>, %y: tensor<3x3xf64>) -> (tensor<6x1xf64>, tensor<9x1xf64>) {
    %s = stablehlo.sine %x : tensor<2x3xf64>
    %r:2 = "stablehlo.all_to_all"(%s, %y) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 3 : i64, replica_groups = dense<[[2, 0, 1]]> : tensor<1x3xi64>} : (tensor<2x3xf64>, tensor<3x3xf64>) -> (tensor<6x1xf64>, tensor<9x1xf64>)
    %m = stablehlo.multiply %r#0, %r#0 : tensor<6x1xf64>
    return %m, %r#1 : tensor<6x1xf64>, tensor<9x1xf64>
  })";

// Across partitions (a channel), concat before split.
const char* kAllToAllAcrossPartitions = R"(
  func.func @f(%x: tensor<4x1xf64>) -> tensor<2x2xf64> {
    %r = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<4x1xf64>) -> tensor<2x2xf64>
    %t = stablehlo.tanh %r : tensor<2x2xf64>
    return %t : tensor<2x2xf64>
  })";

// A chain, not a cycle: process 0 receives nothing (zeros), process 2 sends nothing.
const char* kPermuteChain = R"(
  func.func @f(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
    %s = stablehlo.sine %x : tensor<2x2xf64>
    %p = "stablehlo.collective_permute"(%s) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : (tensor<2x2xf64>) -> tensor<2x2xf64>
    %m = stablehlo.multiply %p, %x : tensor<2x2xf64>
    return %m : tensor<2x2xf64>
  })";

// A three-cycle across partitions (its own inverse would be a two-cycle).
const char* kPermuteCycle = R"(
  func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
    %p = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 2], [2, 1], [1, 0]]> : tensor<3x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<3xf64>) -> tensor<3xf64>
    %e = stablehlo.exponential %p : tensor<3xf64>
    %m = stablehlo.multiply %e, %x : tensor<3xf64>
    return %m : tensor<3xf64>
  })";

// A broadcast from each group's first member and a sum onto it, each the other's
// transpose; processes 1 and 3 are in no group of the reduce (they get zeros).
const char* kBroadcastAndReduce = R"(
  func.func @f(%x: tensor<3xf64>, %y: tensor<2xf64>) -> (tensor<3xf64>, tensor<2xf64>) {
    %s = stablehlo.sine %x : tensor<3xf64>
    %b = "stablehlo.collective_broadcast"(%s) {replica_groups = dense<[[2, 0], [3, 1]]> : tensor<2x2xi64>} : (tensor<3xf64>) -> tensor<3xf64>
    %m = stablehlo.multiply %b, %x : tensor<3xf64>
    %e = stablehlo.exponential %y : tensor<2xf64>
    %r = "stablehlo.collective_reduce"(%e) ({
    ^bb0(%a: tensor<f64>, %c: tensor<f64>):
      %0 = stablehlo.add %a, %c : tensor<f64>
      stablehlo.return %0 : tensor<f64>
    }) {replica_groups = dense<[[2, 0]]> : tensor<1x2xi64>} : (tensor<2xf64>) -> tensor<2xf64>
    %q = stablehlo.multiply %r, %y : tensor<2xf64>
    return %m, %q : tensor<3xf64>, tensor<2xf64>
  })";

// Across partitions (a channel: groups of partitions within each replica).
const char* kBroadcastAcrossPartitions = R"(
  func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
    %b = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2xf64>) -> tensor<2xf64>
    %t = stablehlo.tanh %b : tensor<2xf64>
    %m = stablehlo.multiply %t, %x : tensor<2xf64>
    return %m : tensor<2xf64>
  })";

TEST(CollectiveRulesTest, AllReduce) {
  checkGridDerivatives(kAllReduce, {4, 1});
  checkGridDerivatives(kAllReduceAcrossPartitions, {2, 2});
}

TEST(CollectiveRulesTest, AllGatherAndReduceScatter) {
  checkGridDerivatives(kGatherScatter, {4, 1});
  checkGridDerivatives(kGatherScatterOnGrid, {2, 2});
}

TEST(CollectiveRulesTest, AllToAll) {
  checkGridDerivatives(kAllToAll, {3, 1});
  checkGridDerivatives(kAllToAllAcrossPartitions, {2, 2});
}

TEST(CollectiveRulesTest, CollectiveBroadcastAndReduce) {
  checkGridDerivatives(kBroadcastAndReduce, {4, 1});
  checkGridDerivatives(kBroadcastAcrossPartitions, {2, 2});
}

TEST(CollectiveRulesTest, CollectivePermute) {
  checkGridDerivatives(kPermuteChain, {3, 1});
  checkGridDerivatives(kPermuteCycle, {1, 3});
}

// Every collective in one function, ending in a loss summed over the grid: each
// transpose feeds the next one's cotangent.
TEST(CollectiveRulesTest, Composed) {
  checkGridDerivatives(R"(
    func.func @f(%x: tensor<2x2xf64>) -> tensor<f64> {
      %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<2x2xf64>) -> tensor<4x2xf64>
      %a = "stablehlo.all_to_all"(%g) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x2xf64>) -> tensor<2x4xf64>
      %s = stablehlo.sine %a : tensor<2x4xf64>
      %p = "stablehlo.collective_permute"(%s) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf64>) -> tensor<2x4xf64>
      %rs = "stablehlo.reduce_scatter"(%p) ({
      ^bb0(%a0: tensor<f64>, %b0: tensor<f64>):
        %0 = stablehlo.add %a0, %b0 : tensor<f64>
        stablehlo.return %0 : tensor<f64>
      }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf64>) -> tensor<2x2xf64>
      %m = stablehlo.multiply %rs, %x : tensor<2x2xf64>
      %zero = stablehlo.constant dense<0.0> : tensor<f64>
      %l = stablehlo.reduce(%m init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x2xf64>, tensor<f64>) -> tensor<f64>
      %r = "stablehlo.all_reduce"(%l) ({
      ^bb0(%a1: tensor<f64>, %b1: tensor<f64>):
        %1 = stablehlo.add %a1, %b1 : tensor<f64>
        stablehlo.return %1 : tensor<f64>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<f64>) -> tensor<f64>
      return %r : tensor<f64>
    })",
                   {2, 1});
}

// Batched and shared operands; vmap of a max all_reduce too (batching does not need
// the body to be linear).
TEST(CollectiveRulesTest, Vmap) {
  checkGridVmap(kAllReduce, {4, 1}, {0, std::nullopt}, 3);
  checkGridVmap(kAllReduce, {4, 1}, {1, 2}, 2);
  checkGridVmap(kAllReduceAcrossPartitions, {2, 2}, {1}, 3);
  checkGridVmap(kGatherScatter, {4, 1}, {2}, 3);
  checkGridVmap(kGatherScatterOnGrid, {2, 2}, {1}, 2);
  checkGridVmap(kAllToAll, {3, 1}, {std::nullopt, 1}, 2);
  checkGridVmap(kAllToAll, {3, 1}, {0, 2}, 2);
  checkGridVmap(kAllToAllAcrossPartitions, {2, 2}, {1}, 3);
  checkGridVmap(kPermuteChain, {3, 1}, {2}, 2);
  checkGridVmap(kPermuteCycle, {1, 3}, {0}, 4);
  checkGridVmap(kBroadcastAndReduce, {4, 1}, {1, std::nullopt}, 2);
  checkGridVmap(kBroadcastAcrossPartitions, {2, 2}, {0}, 3);
  checkGridVmap(R"(
    func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
      %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %0 = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %0 : tensor<f32>
      }) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
      return %r : tensor<3xf32>
    })",
            {2, 1}, {1}, 3);
}

// Only a sum is linear: max, min and other bodies are refused by name.
TEST(CollectiveRulesTest, BodiesThatAreNotSums) {
  auto module = [](const std::string& op, const std::string& body) {
    return stablehlo::parseModule(R"(
      func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
        %r = ")" + op + R"("(%x) ({
        ^bb0(%a: tensor<f64>, %b: tensor<f64>):
          %0 = )" + body + R"( %a, %b : tensor<f64>
          stablehlo.return %0 : tensor<f64>
        }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf64>) -> tensor<4xf64>
        return %r : tensor<4xf64>
      })");
  };
  auto max = module("stablehlo.all_reduce", "stablehlo.maximum");
  EXPECT_EQ(errorOf([&] { jvp(*max, *max->lookup("f"), "j"); }),
            "unsupported: unsupported: jvp of stablehlo.all_reduce (a stablehlo.maximum body is not linear: its "
            "tangent would be that of the process whose value wins, line 3)");
  auto min = module("stablehlo.all_reduce", "stablehlo.minimum");
  EXPECT_EQ(errorOf([&] { vjp(*min, *min->lookup("f"), "j"); }),
            "unsupported: unsupported: jvp of stablehlo.all_reduce (a stablehlo.minimum body is not linear: its "
            "tangent would be that of the process whose value wins, line 3)");
  auto product = module("stablehlo.all_reduce", "stablehlo.multiply");
  EXPECT_EQ(errorOf([&] { jvp(*product, *product->lookup("f"), "j"); }),
            "unsupported: unsupported: jvp of stablehlo.all_reduce (a body other than a sum is not linear, line 3)");
}

}  // namespace
}  // namespace kiln::transforms
