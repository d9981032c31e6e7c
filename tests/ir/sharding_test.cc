// Shardings: GSPMD strings and Shardy attributes read into one model and printed back.
#include "ir/sharding.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace kiln {
namespace {

using Axes = std::vector<std::string>;

// Parses, prints, and checks the printed text is `expected` (the canonical form).
void roundTrip(std::string_view text, size_t rank, std::string_view expected) {
  Sharding s = parseHloSharding(text, rank);
  EXPECT_EQ(printHloSharding(s), expected) << text;
  EXPECT_EQ(printHloSharding(parseHloSharding(printHloSharding(s), rank)), expected) << text;
}

TEST(ShardingTest, GspmdFormsRoundTrip) {
  roundTrip("{replicated}", 2, "{replicated}");
  roundTrip("{maximal device=3}", 2, "{maximal device=3}");
  roundTrip("{manual}", 1, "{manual}");
  roundTrip("{devices=[2,1]<=[2]}", 2, "{devices=[2,1]<=[2]}");
  roundTrip("{devices=[2,1]0,1}", 2, "{devices=[2,1]<=[2]}");
  roundTrip("{devices=[2,2]<=[2,2]T(1,0)}", 2, "{devices=[2,2]<=[2,2]T(1,0)}");
  roundTrip("{devices=[2,2]0,2,1,3}", 2, "{devices=[2,2]0,2,1,3}");
  roundTrip("{devices=[4,1]<=[2,2]}", 2, "{devices=[4,1]<=[4]}");
  roundTrip("{devices=[1,2,2]<=[4] last_tile_dim_replicate}", 2, "{devices=[1,2,2]<=[4] last_tile_dim_replicate}");
  roundTrip("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}", 2,
            "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  roundTrip("{devices=[2,2]<=[4] last_tile_dims={manual}}", 1, "{devices=[2,2]<=[4] last_tile_dims={manual}}");
  roundTrip("{devices=[8]<=[2,4]T(1,0)}", 1, "{devices=[8]<=[2,4]T(1,0)}");
  roundTrip("{devices=[2,1]1,0 metadata={op_name=\"x{\" source_line=3}}", 2, "{devices=[2,1]1,0}");
  // A device order that does not group into the tile dimensions lists the devices.
  roundTrip("{devices=[2,6]<=[3,4]T(1,0)}", 2, "{devices=[2,6]0,4,8,1,5,9,2,6,10,3,7,11}");
  roundTrip("{devices=[2,3]<=[3,2]T(1,0)}", 2, "{devices=[2,3]<=[3,2]T(1,0)}");
}

TEST(ShardingTest, GspmdTilesBecomeMeshAxes) {
  Sharding s = parseHloSharding("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}", 2);
  ASSERT_EQ(s.mesh.axes.size(), 2u);
  EXPECT_EQ(s.dims[0], Axes{"_axis_1"});
  EXPECT_TRUE(s.dims[1].empty());
  EXPECT_EQ(s.unusedAxes(), Axes{"_axis_0"});
  EXPECT_EQ(s.shardCount(0), 2);
  // Device ids: listed ones are kept in mesh order.
  Sharding listed = parseHloSharding("{devices=[2,2]3,2,1,0}", 2);
  EXPECT_EQ(listed.mesh.deviceIds, (std::vector<int64_t>{3, 2, 1, 0}));
  EXPECT_EQ(listed.mesh.device(1), 2);
  EXPECT_EQ(listed.mesh.coordinate(1, 1), 1);
  EXPECT_TRUE(parseHloSharding("{replicated}", 3).isFullyReplicated());
  Sharding unknown = parseHloSharding("{unknown}", 2);
  EXPECT_EQ(unknown.open, (std::vector<bool>{true, true}));
}

TEST(ShardingTest, GspmdTuples) {
  std::vector<Sharding> t = parseHloShardings("{{replicated}, {devices=[2]<=[2]}}", {2, 1});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_TRUE(t[0].isFullyReplicated());
  EXPECT_EQ(t[1].shardCount(0), 2);
  // One sharding for a tuple applies to every element.
  EXPECT_EQ(parseHloShardings("{replicated}", {1, 2}).size(), 2u);
  EXPECT_THROW(parseHloShardings("{{replicated}}", {1, 2}), Error);
}

TEST(ShardingTest, GspmdErrorsNameTheProblem) {
  auto message = [](std::string_view text, size_t rank) {
    try {
      parseHloSharding(text, rank);
    } catch (const Error& e) {
      return e.message();
    }
    return std::string("no error");
  };
  EXPECT_NE(message("{devices=[2,2]<=[2]}", 2).find("the iota has 2 devices, the tiles 4"), std::string::npos);
  EXPECT_NE(message("{devices=[2,1]0,1,2}", 2).find("3 devices for 2 tiles"), std::string::npos);
  EXPECT_NE(message("{devices=[2,1]<=[2]}", 1).find("2 tile dimensions for an array of rank 1"), std::string::npos);
  EXPECT_NE(message("{tiled}", 1).find("unknown sharding kind 'tiled'"), std::string::npos);
  EXPECT_NE(message("{devices=[2]<=[2]T(1)}", 1).find("not a permutation"), std::string::npos);
  EXPECT_NE(message("{replicated", 1).find("expected '}'"), std::string::npos);
  EXPECT_NE(message("{devices=[2]<=[2] last_tile_dims={shuffled}}", 0).find("unknown subgroup type"), std::string::npos);
  EXPECT_NE(message("{replicated} x", 1).find("text after the sharding"), std::string::npos);
}

TEST(ShardingTest, ShardyMeshesAndShardings) {
  DeviceMesh mesh = parseSdyMesh("<[\"x\"=2, \"y\"=4]>");
  EXPECT_EQ(mesh.numDevices(), 8);
  EXPECT_EQ(printSdyMesh(mesh), "<[\"x\"=2, \"y\"=4]>");
  DeviceMesh reversed = parseSdyMesh("#sdy.mesh<[\"x\"=2], device_ids=[1,0]>");
  EXPECT_EQ(printSdyMesh(reversed), "<[\"x\"=2], device_ids=[1,0]>");
  MeshLookup lookup = [&](std::string_view name) -> const DeviceMesh* { return name == "mesh" ? &mesh : nullptr; };

  std::string text = "#sdy.sharding<@mesh, [{\"y\"}, {\"x\", ?}, {}]>";
  Sharding s = parseSdySharding(text, lookup);
  EXPECT_EQ(s.meshName, "mesh");
  EXPECT_EQ(s.dims[0], Axes{"y"});
  EXPECT_EQ(s.open, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(printSdySharding(s), text);
  // The GSPMD spelling of the same layout.
  EXPECT_EQ(printHloSharding(s), "{devices=[4,2,1]<=[2,4]T(1,0)}");

  Sharding r = parseSdySharding("#sdy.sharding<@mesh, [{}, {\"y\"}p1], replicated={\"x\"}, unreduced={}>", lookup);
  EXPECT_EQ(r.replicated, Axes{"x"});
  EXPECT_EQ(printHloSharding(r), "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  Sharding partial = parseSdySharding("<@mesh, [{}], unreduced={\"x\"}>", lookup);
  EXPECT_EQ(partial.unreduced, Axes{"x"});
  EXPECT_THROW(printHloSharding(partial), Error);  // GSPMD has no partial sums

  std::vector<Sharding> perValue =
      parseSdyShardingPerValue("#sdy.sharding_per_value<[<@mesh, [{\"x\"}]>, <@mesh, []>]>", lookup);
  ASSERT_EQ(perValue.size(), 2u);
  EXPECT_EQ(perValue[0].dims[0], Axes{"x"});
  EXPECT_TRUE(perValue[1].isFullyReplicated());

  Sharding inlineMaximal = parseSdySharding("#sdy.sharding<mesh<[], device_ids=[3]>, []>", lookup);
  EXPECT_EQ(inlineMaximal.kind, Sharding::Kind::Maximal);
  EXPECT_EQ(printHloSharding(inlineMaximal), "{maximal device=3}");
  EXPECT_EQ(printSdySharding(inlineMaximal), "#sdy.sharding<mesh<[], device_ids=[3]>, []>");
}

TEST(ShardingTest, ShardyErrors) {
  DeviceMesh mesh = parseSdyMesh("<[\"x\"=2]>");
  MeshLookup lookup = [&](std::string_view name) -> const DeviceMesh* { return name == "mesh" ? &mesh : nullptr; };
  EXPECT_THROW(parseSdySharding("#sdy.sharding<@other, [{}]>", lookup), Error);
  EXPECT_THROW(parseSdySharding("#sdy.sharding<@mesh, [{\"z\"}]>", lookup), Error);
  EXPECT_THROW(parseSdyMesh("<[\"x\"=2, \"x\"=2]>"), Error);
  EXPECT_THROW(parseSdyMesh("<[\"x\"=2], device_ids=[0]>"), Error);
  try {
    parseSdySharding("#sdy.sharding<@mesh, [{\"x\":(1)2}]>", lookup);
    FAIL() << "a sub-axis was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  }
}

}  // namespace
}  // namespace kiln
