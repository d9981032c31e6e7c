// Portable artifacts jaxlib 0.10.2 wrote with jax.export (tests/stablehlo/bytecode/*.mlirbc)
// read into the same module as the StableHLO text jax printed for the same export
// (*.mlir beside them): the same fingerprint, locations kept. dot_tanh has a dot_general
// whose dimension numbers VHLO splits into attributes; loops has a while whose body holds
// a reduce (a region isolated from above), a case, calls of private functions, a sort and
// an argmax. Artifacts newer than kiln's StableHLO, unknown op versions and damaged
// bytes are errors naming what is wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "ir/fingerprint.h"
#include "ir/sharding_attrs.h"
#include "stablehlo/bytecode.h"
#include "stablehlo/bytecode_test_util.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::stablehlo {
namespace {

std::string readGolden(const std::string& file) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/stablehlo/bytecode/" + file, std::ios::binary);
  EXPECT_TRUE(in) << file;
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<const Op*> opsOf(const Function* fn) {
  std::vector<const Op*> ops;
  for (const auto& op : fn->body().ops()) ops.push_back(&*op);
  return ops;
}

class BytecodeModuleTest : public testing::TestWithParam<const char*> {};

TEST_P(BytecodeModuleTest, ReadsIntoTheModuleOfItsText) {
  const std::string name = GetParam();
  const std::string bytes = readGolden(name + ".mlirbc");
  ASSERT_TRUE(isBytecode(bytes));
  std::unique_ptr<Module> fromBytecode = parseBytecode(bytes, name + ".mlirbc");
  std::unique_ptr<Module> fromText = parseModule(SourceBuffer::fromString(name + ".mlir", readGolden(name + ".mlir")));
  EXPECT_EQ(fingerprint(*fromBytecode), fingerprint(*fromText));
  // parseModule reads bytecode too (every tool and the plugins go through it).
  EXPECT_EQ(fingerprint(*parseModule(SourceBuffer::fromString(name, bytes))), fingerprint(*fromText));
  // The same locations, op by op: reports point at the user's Python lines.
  const Function* main = fromBytecode->lookup("main");
  const Function* mainText = fromText->lookup("main");
  ASSERT_TRUE(main && mainText);
  const std::vector<const Op*> ops = opsOf(main), textOps = opsOf(mainText);
  ASSERT_EQ(ops.size(), textOps.size());
  size_t withFiles = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Location& loc = ops[i]->loc;
    EXPECT_EQ(loc, textOps[i]->loc) << name << " op " << i;
    withFiles += loc.fileLocation().kind() == Location::Kind::File;
  }
  EXPECT_GT(withFiles, 0u);
}

INSTANTIATE_TEST_SUITE_P(JaxExports, BytecodeModuleTest, testing::Values("dot_tanh", "loops"));

// What jaxlib 0.10.2 hands PJRT_Client_Compile (captured with KILN_DUMP_PROGRAMS; its text
// differs from jax's as_text() by jaxlib's own passes, so these are checked by content).
// eigh.mlirbc: jnp.linalg.eigh, a LAPACK custom call with layouts, an operand alias, a
// dictionary backend config, and Shardy's sharding rule (left out). normal.mlirbc:
// jax.random.normal, whose key passes a Shardy sharding constraint on an empty mesh
// (Shardy's ops and attributes in their own encoding, behind conversion casts).
TEST(BytecodeModuleTest, ReadsWhatJaxlibSendsToCompile) {
  std::unique_ptr<Module> eigh = parseBytecode(readGolden("eigh.mlirbc"), "eigh.mlirbc");
  const Op* call = nullptr;
  for (const Op* op : opsOf(eigh->lookup("eigh")))
    if (op->name() == "stablehlo.custom_call") call = op;
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->attr("call_target_name").asString(), "lapack_ssyevd_ffi");
  EXPECT_TRUE(call->attr("mhlo.backend_config").is(Attribute::Kind::Dictionary));
  EXPECT_EQ(call->attr("output_operand_aliases").asArray().size(), 1u);
  EXPECT_EQ(call->attr("result_layouts").asArray().size(), 3u);
  EXPECT_FALSE(call->attr("sdy.sharding_rule"));

  std::unique_ptr<Module> normal = parseBytecode(readGolden("normal.mlirbc"), "normal.mlirbc");
  ASSERT_EQ(normal->meshes.size(), 1u);
  EXPECT_EQ(normal->meshes[0].name, "empty_mesh");
  const std::vector<const Op*> main = opsOf(normal->lookup("main"));
  ASSERT_FALSE(main.empty());
  EXPECT_TRUE(isShardingConstraint(*main[0])) << printOp(*main[0]);
  EXPECT_TRUE(normal->lookup("_normal_real"));
}

// shard_map.mlirbc: jit(shard_map(a * psum(a.sum(0)))) over 2 devices, as jaxlib compiles
// it: sdy.manual_computation (shardings, manual axes, an isolated body ending in
// sdy.return) reads as kiln's shard_map boundaries around the body, with its all_reduce.
TEST(BytecodeModuleTest, ReadsShardMapsManualComputation) {
  std::unique_ptr<Module> m = parseBytecode(readGolden("shard_map.mlirbc"), "shard_map.mlirbc");
  ASSERT_EQ(m->meshes.size(), 1u);
  EXPECT_EQ(m->meshes[0].mesh.numDevices(), 2);
  int entries = 0, exits = 0, allReduces = 0;
  for (const auto& fn : m->functions())
    walk(fn->body(), [&](Op& op) {
      entries += shardMapBoundary(op) == ShardMapBoundary::Entry;
      exits += shardMapBoundary(op) == ShardMapBoundary::Exit;
      allReduces += op.name() == "stablehlo.all_reduce";
    });
  EXPECT_EQ(entries, 1);
  EXPECT_EQ(exits, 1);
  EXPECT_EQ(allReduces, 1);
}

TEST(BytecodeModuleTest, KeepsTheUsersLine) {
  std::unique_ptr<Module> m = parseBytecode(readGolden("dot_tanh.mlirbc"), "dot_tanh.mlirbc");
  const Location loc = opsOf(m->lookup("main"))[1]->loc.fileLocation();  // the dot_general
  EXPECT_EQ(loc.text(), "/tmp/mkbc.py");
  EXPECT_EQ(loc.line(), 4u);
  EXPECT_EQ(loc.col(), 20u);
}

// Replaces the first occurrence of `from` by `to` (the same length) in `bytes`.
std::string patched(std::string bytes, const std::string& from, const std::string& to) {
  const size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(from.size(), to.size());
  return bytes.replace(at, from.size(), to);
}

std::string errorOf(const std::string& bytes, ErrorKind expected) {
  try {
    parseBytecode(bytes, "patched.mlirbc");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(BytecodeModuleTest, AnArtifactNewerThanKilnsStablehloIsUnsupported) {
  const std::string bytes = patched(readGolden("dot_tanh.mlirbc"), "StableHLO_v1.", "StableHLO_v9.");
  EXPECT_NE(errorOf(bytes, ErrorKind::Unsupported).find("newer than StableHLO 1.17.0"), std::string::npos);
}

TEST(BytecodeModuleTest, AnOpVersionKilnDoesNotReadIsUnsupported) {
  const std::string bytes = patched(readGolden("dot_tanh.mlirbc"), "tanh_v2", "tanh_v7");
  EXPECT_NE(errorOf(bytes, ErrorKind::Unsupported).find("op vhlo.tanh_v7"), std::string::npos);
}

TEST(BytecodeModuleTest, DamagedBytesAreErrorsNeverCrashes) {
  const std::string bytes = readGolden("loops.mlirbc");
  const bytecode::Container c = bytecode::readContainer(bytes, "loops.mlirbc");
  // The IR, the properties and every attribute and type, byte by byte.
  std::vector<bytecode::Entry> entries = {{0, c.ir, false, c.irOffset}, {0, c.properties, false, c.propertiesOffset}};
  entries.insert(entries.end(), c.attributes.begin(), c.attributes.end());
  entries.insert(entries.end(), c.types.begin(), c.types.end());
  bytecode::readWithEachByteDamaged(bytes, entries, [](const std::string& damaged) { parseBytecode(damaged, "damaged.mlirbc"); });
}

}  // namespace
}  // namespace kiln::stablehlo
