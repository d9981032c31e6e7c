// Sharding annotations as JAX exports them — GSPMD's mhlo.sharding strings, the
// @Sharding custom call, Shardy's sdy.mesh, sdy.sharding and sdy.sharding_constraint —
// read into the module and printed back as they were written.
#include <gtest/gtest.h>

#include "ir/ops/stablehlo.h"
#include "ir/sharding_attrs.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::stablehlo {
namespace {

const char* kSharded = R"(module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}, %arg1: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "", mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {"x"}]> : tensor<8x4xf32>
    %3 = stablehlo.negate %2 {mhlo.sharding = "{replicated}"} : tensor<8x4xf32>
    return %3 : tensor<8x4xf32>
  }
}
)";

TEST(ShardingSyntaxTest, ReadsEveryFormAndPrintsItBack) {
  std::unique_ptr<Module> m = parseModule(SourceBuffer::fromString("sharded.mlir", kSharded));
  ASSERT_EQ(m->meshes.size(), 1u);
  EXPECT_EQ(m->meshes[0].name, "mesh");
  const Function& fn = *m->lookup("main");
  std::optional<Sharding> a0 = paramSharding(*m, fn, 0);
  ASSERT_TRUE(a0);
  EXPECT_EQ(a0->shardCount(0), 2);
  std::optional<Sharding> a1 = paramSharding(*m, fn, 1);
  ASSERT_TRUE(a1);
  EXPECT_EQ(a1->meshName, "mesh");
  EXPECT_EQ(a1->dims[0], std::vector<std::string>{"x"});
  EXPECT_TRUE(a1->open[0]);
  EXPECT_TRUE(resultSharding(*m, fn, 0));
  // The constraints are identity reshapes carrying their sharding.
  std::vector<const Op*> constraints;
  for (const auto& op : fn.body().ops())
    if (isShardingConstraint(*op)) constraints.push_back(op.get());
  ASSERT_EQ(constraints.size(), 2u);
  EXPECT_EQ((*opShardings(*m, *constraints[1]))[0].dims[1], std::vector<std::string>{"x"});
  EXPECT_TRUE((*opShardings(*m, *fn.body().ops().back()->operand(0)->definingOp()))[0].isFullyReplicated());
  EXPECT_EQ(printModule(*m), kSharded);
}

// shard_map's boundaries: ones that change the shape stay custom calls (with every
// attribute they came with); ones that do not (a one-device mesh) are identities that
// print back as the calls.
TEST(ShardingSyntaxTest, ShardMapBoundariesPrintBackAsTheyCame) {
  const char* text = R"(module {
  func.func @main(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<4x4xf32>) {
    %0 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.custom_call @SPMDShardToFullShape(%0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %2 = stablehlo.custom_call @SPMDFullToShardShape(%1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<4x4xf32>
    return %1, %2 : tensor<8x4xf32>, tensor<4x4xf32>
  }
}
)";
  std::unique_ptr<Module> m = parseModule(SourceBuffer::fromString("b.mlir", text));
  const auto& ops = m->lookup("main")->body().ops();
  auto it = ops.begin();
  EXPECT_TRUE((*it)->is(ops::Reshape));
  EXPECT_EQ(shardMapBoundary(**it), ShardMapBoundary::Entry);
  EXPECT_FALSE(isShardingConstraint(**it));
  EXPECT_EQ(shardMapBoundary(**++it), ShardMapBoundary::Exit);
  EXPECT_TRUE((*++it)->is(ops::CustomCall));
  EXPECT_EQ(shardMapBoundary(**it), ShardMapBoundary::Entry);
  EXPECT_EQ(printModule(*m), text);
}

TEST(ShardingSyntaxTest, BadShardingsAreLocatedErrors) {
  auto errorOf = [](const std::string& text) {
    try {
      parseModule(SourceBuffer::fromString("bad.mlir", text));
    } catch (const Error& e) {
      return e.format();
    }
    return std::string("no error");
  };
  std::string text = kSharded;
  auto with = [&](std::string_view from, std::string_view to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_NE(errorOf(with("[{\"x\", ?}, {}]", "[{\"z\"}, {}]")).find("the mesh has no axis \"z\""), std::string::npos);
  EXPECT_NE(errorOf(with("<@mesh, [{}, {\"x\"}]>", "<@mesh, [{}]>")).find("bad.mlir:6:10: error: sdy.sharding has 1 dimension shardings"),
            std::string::npos);
  EXPECT_NE(errorOf(with("<@mesh, [{}, {\"x\"}]>", "<@other, [{}, {}]>")).find("unknown mesh @other"), std::string::npos);
  EXPECT_NE(errorOf(with("{replicated}", "{devices=[3,1]<=[2]}")).find("bad.mlir:7:10: error: bad mhlo.sharding"),
            std::string::npos);
  EXPECT_NE(errorOf(with("sdy.mesh @mesh = <[\"x\"=2]>", "sdy.mesh @mesh = <[\"x\"=2]>\n  sdy.mesh @mesh = <[\"y\"=2]>"))
                .find("mesh @mesh is defined twice"),
            std::string::npos);
  EXPECT_NE(errorOf(with("sdy.sharding_constraint", "sdy.all_slice")).find("unsupported: op 'sdy.all_slice'"),
            std::string::npos);
  EXPECT_NE(errorOf(with("sdy.sharding_constraint", "sdy.manual_computation")).find("bad.mlir:6:33: error: expected '('"),
            std::string::npos)
      << errorOf(with("sdy.sharding_constraint", "sdy.manual_computation"));
}

}  // namespace
}  // namespace kiln::stablehlo
