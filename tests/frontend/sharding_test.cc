// jit with in_shardings / out_shardings: the program partitioned over a mesh of the
// plugin's devices gives what the unsharded jit gives.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "frontend_test_util.h"

namespace {

using kiln::Array;
using kiln::NamedSharding;
using kiln_test::f32;
using kiln_test::values;

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(static_cast<int>(i % 7) - 3);
  return v;
}

// Under mpirun (ctest runs these tests with 2 ranks too) each process is one device of
// the mesh: the job's size and this process's rank are what Open MPI's launcher says.
TEST(ShardedJitTest, ProcessesOfTheJob) {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(kiln::processCount(), size ? std::atoi(size) : 1);
  EXPECT_EQ(kiln::processIndex(), rank ? std::atoi(rank) : 0);
}

TEST(ShardedJitTest, DataAndTensorParallelAgreeWithOneDevice) {
  kiln::Mesh mesh({{"x", 2}});
  auto mlp = [](const Array& x, const Array& w1, const Array& w2) {
    return kiln::matmul(kiln::maximum(kiln::matmul(x, w1), 0.0f), w2);
  };
  Array x = f32(ramp(8 * 4, 0.5f), {8, 4}), w1 = f32(ramp(4 * 6, 0.25f), {4, 6}), w2 = f32(ramp(6 * 2, 1.0f), {6, 2});
  std::vector<float> want = values(kiln::jit(mlp)(x, w1, w2));
  // Data parallel: the batch split, the weights whole.
  auto dp = kiln::jit(mlp, {.name = "dp", .inShardings = {NamedSharding(mesh, {{"x"}}), std::nullopt, std::nullopt},
                            .outShardings = {NamedSharding(mesh, {{"x"}, {}})}});
  // Megatron: w1 by columns, w2 by rows, the output whole.
  auto tp = kiln::jit(mlp, {.name = "tp",
                            .inShardings = {NamedSharding(mesh, {}), NamedSharding(mesh, {{}, {"x"}}),
                                            NamedSharding(mesh, {{"x"}, {}})},
                            .outShardings = {NamedSharding(mesh, {})}});
  for (const auto& got : {values(dp(x, w1, w2)), values(tp(x, w1, w2))}) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << i;  // small integers: exact
  }
  // Traced and partitioned once.
  dp(x, w1, w2);
  EXPECT_EQ(dp.compiles(), 1);
}

// with_sharding_constraint: inside jit a Shardy constraint that the partitioner starts
// from (jit partitions such a program without in/out shardings); outside jit the array.
TEST(ShardedJitTest, WithShardingConstraint) {
  kiln::Mesh mesh({{"x", 2}});
  auto mlp = [&](const Array& x, const Array& w1, const Array& w2) {
    Array h = kiln::with_sharding_constraint(kiln::maximum(kiln::matmul(x, w1), 0.0f), NamedSharding(mesh, {{}, {"x"}}));
    return kiln::matmul(h, w2);
  };
  Array x = f32(ramp(8 * 4, 0.5f), {8, 4}), w1 = f32(ramp(4 * 6, 0.25f), {4, 6}), w2 = f32(ramp(6 * 2, 1.0f), {6, 2});
  std::vector<float> want = values(mlp(x, w1, w2));  // eagerly: the constraint is the identity
  std::vector<float> got = values(kiln::jit(mlp)(x, w1, w2));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << i;
  const std::string text = kiln::export_stablehlo(mlp, x, w1, w2);
  EXPECT_NE(text.find("sdy.mesh @mesh = <[\"x\"=2]>"), std::string::npos) << text;
  EXPECT_NE(text.find("sdy.sharding_constraint"), std::string::npos) << text;
  EXPECT_NE(text.find("<@mesh, [{}, {\"x\"}]>"), std::string::npos) << text;
  // The program is partitioned: a split the mesh cannot make evenly is refused there.
  auto uneven = kiln::jit([&](const Array& a) { return kiln::with_sharding_constraint(a * 2.0f, NamedSharding(mesh, {{"x"}})); });
  EXPECT_NE(kiln_test::errorMessage([&] { uneven(f32(ramp(3, 1), {3})); }).find("uneven pieces"), std::string::npos);
  // One mesh per program.
  auto twoMeshes = kiln::jit([&](const Array& a) {
    return kiln::with_sharding_constraint(a, NamedSharding(kiln::Mesh({{"y", 2}}), {{"y"}}));
  }, {.inShardings = {NamedSharding(mesh, {{"x"}})}});
  EXPECT_NE(kiln_test::errorMessage([&] { twoMeshes(f32(ramp(4, 1), {4})); }).find("one mesh per program"), std::string::npos);
}

// device_put splits an array into pieces its devices keep; everything that reads it
// whole (values, eager ops, a jit without shardings) assembles it.
TEST(ShardedArrayTest, DevicePutKeepsPieces) {
  if (kiln::processCount() > 1) GTEST_SKIP() << "under mpirun each process holds whole arrays";
  kiln::Mesh mesh({{"x", 2}});
  Array x = f32(ramp(8 * 4, 1.0f), {8, 4});
  Array s = kiln::device_put(x, NamedSharding(mesh, {{"x"}, {}}));
  EXPECT_FALSE(kiln::sharding_of(x).has_value());
  ASSERT_TRUE(kiln::sharding_of(s).has_value());
  EXPECT_EQ(kiln::sharding_of(s)->spec, (kiln::PartitionSpec{{"x"}, {}}));
  EXPECT_EQ(kiln::sharding_of(s)->mesh.axes(), mesh.axes());
  std::vector<Array> pieces = kiln::addressable_shards(s);
  ASSERT_EQ(pieces.size(), 2u);
  const std::vector<float> all = values(x);
  for (size_t d = 0; d < 2; ++d) {
    EXPECT_EQ(pieces[d].shape(), (std::vector<int64_t>{4, 4}));
    EXPECT_EQ(values(pieces[d]), std::vector<float>(all.begin() + 16 * d, all.begin() + 16 * (d + 1))) << d;
  }
  EXPECT_EQ(values(s), all);
  EXPECT_EQ(values(s * 2.0f), values(x * 2.0f));
  EXPECT_EQ(values(kiln::jit([](const Array& a) { return a + 1.0f; })(s)), values(x + 1.0f));
}

// A training loop's state stays sharded from step to step (jit returns its results in
// their pieces and takes them back as they are), and trains as the unsharded loop does.
TEST(ShardedArrayTest, StateStaysShardedAcrossSteps) {
  if (kiln::processCount() > 1) GTEST_SKIP() << "under mpirun each process holds whole arrays";
  kiln::Mesh mesh({{"x", 2}});
  const NamedSharding columns(mesh, {{}, {"x"}}), whole(mesh, {});
  auto step = [](const Array& w, const Array& x) {
    Array grad = kiln::matmul(kiln::transpose(x), kiln::matmul(x, w));
    return w - grad * 0.01f;
  };
  auto sharded = kiln::jit(step, {.name = "step", .inShardings = {columns, whole}, .outShardings = {columns}});
  Array x = f32(ramp(8 * 4, 0.5f), {8, 4}), w0 = f32(ramp(4 * 6, 0.25f), {4, 6});
  Array w = kiln::device_put(w0, columns), plain = w0;
  for (int i = 0; i < 3; ++i) {
    w = sharded(w, x);
    plain = step(plain, x);
    ASSERT_TRUE(kiln::sharding_of(w).has_value());
    EXPECT_EQ(kiln::sharding_of(w)->spec, (kiln::PartitionSpec{{}, {"x"}}));
  }
  const std::vector<float> got = values(w), want = values(plain);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f * (1 + std::abs(want[i]))) << i;
  EXPECT_EQ(sharded.compiles(), 1);
}

// shard_map: each device's own code on its pieces, with explicit collectives; the
// same numbers as the plain program, inside jit and outside it.
TEST(ShardMapTest, CollectivesOnEachDevicesPieces) {
  kiln::Mesh mesh({{"x", 2}});
  Array x = f32(ramp(8 * 4, 1.0f), {8, 4});
  auto perDevice = [](const std::vector<Array>& in) {
    const Array& piece = in[0];  // 4x4: this device's rows
    Array columnSums = kiln::psum(kiln::sum(piece, 0), "x");
    Array whole = kiln::all_gather(piece, "x", 0);
    Array numbered = piece + kiln::astype(kiln::axis_index("x"), kiln::float32) * 100.0f;
    return std::vector<Array>{columnSums, whole, numbered};
  };
  auto mapped = [&](const Array& a) {
    return kiln::shard_map(perDevice, mesh, {{{"x"}, {}}}, {{}, {}, {{"x"}, {}}}, {a});
  };
  const std::vector<float> all = values(x);
  std::vector<float> numbered = all;
  for (size_t i = 16; i < 32; ++i) numbered[i] += 100.0f;  // rows 4..7 are device 1's
  for (bool jitted : {false, true}) {
    SCOPED_TRACE(jitted ? "in jit" : "outside jit");
    std::vector<Array> got = jitted ? kiln::jit([&](const Array& a) { return mapped(a); })(x) : mapped(x);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(values(got[0]), values(kiln::sum(x, 0)));
    EXPECT_EQ(values(got[1]), all);
    EXPECT_EQ(values(got[2]), numbered);
  }
  // Its code is staged as JAX exports a shard_map.
  const std::string text = kiln::export_stablehlo(mapped, x);
  EXPECT_NE(text.find("@SPMDFullToShardShape"), std::string::npos) << text;
  EXPECT_NE(text.find("@SPMDShardToFullShape"), std::string::npos) << text;
  EXPECT_NE(text.find("stablehlo.all_reduce"), std::string::npos) << text;
  EXPECT_NE(text.find("stablehlo.all_gather"), std::string::npos) << text;
}

// ppermute: a shift along the axis, on 4 devices; the first device receives zeros.
TEST(ShardMapTest, Ppermute) {
  if (kiln::processCount() != 1 && kiln::processCount() != 4) GTEST_SKIP() << "its mesh has 4 devices";
  kiln::Mesh mesh({{"x", 4}});
  Array x = f32(ramp(8, 1.0f), {8});  // two elements per device
  auto shifted = [&](const Array& a) {
    return kiln::shard_map([](const std::vector<Array>& in) {
      return std::vector<Array>{kiln::ppermute(in[0], "x", {{0, 1}, {1, 2}, {2, 3}})};
    }, mesh, {{{"x"}}}, {{{"x"}}}, {a});
  };
  const std::vector<float> v = values(x);
  std::vector<float> want = {0, 0, v[0], v[1], v[2], v[3], v[4], v[5]};
  EXPECT_EQ(values(shifted(x)[0]), want);
  EXPECT_EQ(values(kiln::jit([&](const Array& a) { return shifted(a); })(x)[0]), want);
  auto twice = [](const std::vector<Array>& in) { return std::vector<Array>{kiln::ppermute(in[0], "x", {{0, 1}, {2, 1}})}; };
  EXPECT_NE(kiln_test::errorMessage([&] { kiln::shard_map(twice, mesh, {{{"x"}}}, {{{"x"}}}, {x}); }).find("sends or receives twice"),
            std::string::npos);
}

// pmap on shard_map: once per slice of the leading dimension, psum over its axis.
TEST(ShardMapTest, Pmap) {
  Array x = f32(ramp(2 * 3, 1.0f), {2, 3});
  std::vector<Array> got = kiln::pmap([](const std::vector<Array>& in) {
    return std::vector<Array>{kiln::psum(in[0], "i"), in[0] * 2.0f};
  }, "i", {x});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].shape(), (std::vector<int64_t>{2, 3}));
  const std::vector<float> v = values(x), sums = values(got[0]);
  for (size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(sums[j], v[j] + v[3 + j]);
    EXPECT_EQ(sums[3 + j], v[j] + v[3 + j]);
  }
  EXPECT_EQ(values(got[1]), values(x * 2.0f));
}

TEST(ShardMapTest, MisuseIsAUsageError) {
  kiln::Mesh mesh({{"x", 2}});
  Array x = f32(ramp(4, 1.0f), {4});
  EXPECT_NE(kiln_test::errorMessage([&] { kiln::psum(x, "x"); }).find("outside a shard_map"), std::string::npos);
  auto f = [](const std::vector<Array>& in) { return std::vector<Array>{kiln::psum(in[0], "y")}; };
  EXPECT_NE(kiln_test::errorMessage([&] { kiln::shard_map(f, mesh, {{{"x"}}}, {{}}, {x}); }).find("no axis \"y\""),
            std::string::npos);
  auto id = [](const std::vector<Array>& in) { return in; };
  EXPECT_NE(kiln_test::errorMessage([&] { kiln::shard_map(id, mesh, {}, {{}}, {x}); }).find("0 in_specs for 1 arguments"),
            std::string::npos);
  EXPECT_NE(kiln_test::errorMessage([&] { kiln::shard_map(id, mesh, {{{"x"}}}, {{}, {}}, {x}); }).find("returned 1 arrays for 2 out_specs"),
            std::string::npos);
  EXPECT_NE(kiln_test::errorMessage([&] { kiln::shard_map(id, mesh, {{{"x"}}}, {{}}, {f32(ramp(3, 1.0f), {3})}); })
                .find("does not split into 2 equal pieces"),
            std::string::npos);
}

TEST(ShardedJitTest, BadShardingsAreUsageErrors) {
  kiln::Mesh mesh({{"x", 2}});
  auto f = [](const Array& x) { return x * 2.0f; };
  Array x = f32(ramp(8, 1), {8});
  auto tooLong = kiln::jit(f, {.inShardings = {NamedSharding(mesh, {{"x"}, {}})}});
  EXPECT_NE(kiln_test::errorMessage([&] { tooLong(x); }).find("a PartitionSpec of 2 dimensions for an array of rank 1"),
            std::string::npos);
  auto unknownAxis = kiln::jit(f, {.inShardings = {NamedSharding(mesh, {{"y"}})}});
  EXPECT_NE(kiln_test::errorMessage([&] { unknownAxis(x); }).find("the mesh has no axis \"y\""), std::string::npos);
}

}  // namespace
