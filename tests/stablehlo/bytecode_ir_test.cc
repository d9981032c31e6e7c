// The IR section of a portable artifact jaxlib 0.10.2 wrote (tests/stablehlo/bytecode/
// dot_tanh.mlirbc) reads into its tree: builtin.module holding vhlo.func_v1 @main, whose
// block takes x and y and computes tanh(x @ y) + 1, values numbered as MLIR numbers
// them; damaged IR and properties are errors, never crashes.
#include <gtest/gtest.h>

#include <string>

#include "stablehlo/bytecode_ir.h"
#include "stablehlo/bytecode_test_util.h"
#include "stablehlo/bytecode_types.h"
#include "support/error.h"

namespace kiln::stablehlo::bytecode {
namespace {

TEST(BytecodeIrTest, ReadsTheModuleAndItsFunction) {
  const std::string bytes = goldenBytecode();
  const Container c = readContainer(bytes, "dot_tanh.mlirbc");
  TypeTable types(c, "dot_tanh.mlirbc");
  const std::vector<IrOp> top = readIr(c, "dot_tanh.mlirbc");
  auto opName = [&](const IrOp& op) {
    return c.dialects[c.opNames[op.name].dialect].name + "." + c.opNames[op.name].name;
  };
  ASSERT_EQ(top.size(), 1u);
  const IrOp& module = top[0];
  EXPECT_EQ(opName(module), "builtin.module");
  EXPECT_TRUE(module.isolated);
  ASSERT_TRUE(module.attributes.has_value());  // {jax.uses_shape_polymorphism, mhlo.num_partitions, ...}
  ASSERT_EQ(module.regions.size(), 1u);
  ASSERT_EQ(module.regions[0].blocks.size(), 1u);
  const std::vector<IrOp>& functions = module.regions[0].blocks[0].ops;
  ASSERT_EQ(functions.size(), 1u);
  const IrOp& main = functions[0];
  EXPECT_EQ(opName(main), "vhlo.func_v1");
  ASSERT_TRUE(main.properties.has_value());  // sym_name, function_type, ... as VHLO writes them
  ASSERT_EQ(main.regions.size(), 1u);
  const IrRegion& body = main.regions[0];
  EXPECT_EQ(body.numValues, 7u);  // x, y and five results
  ASSERT_EQ(body.blocks.size(), 1u);
  const IrBlock& block = body.blocks[0];
  ASSERT_EQ(block.arguments.size(), 2u);
  EXPECT_EQ(types.valueType(block.arguments[0].type, "x"), Type::tensor(DType::F32, {4, 3}));
  EXPECT_EQ(types.valueType(block.arguments[1].type, "y"), Type::tensor(DType::F32, {3, 2}));
  EXPECT_EQ(block.firstArgument, 0u);
  struct Expected {
    const char* name;
    std::vector<uint64_t> operands;
    uint64_t firstResult;
  };
  const Expected expected[] = {{"vhlo.constant_v1", {}, 2},        {"vhlo.dot_general_v2", {0, 1}, 3},
                               {"vhlo.tanh_v2", {3}, 4},           {"vhlo.broadcast_in_dim_v1", {2}, 5},
                               {"vhlo.add_v1", {4, 5}, 6},         {"vhlo.return_v1", {6}, 7}};
  ASSERT_EQ(block.ops.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(opName(block.ops[i]), expected[i].name);
    EXPECT_EQ(block.ops[i].operands, expected[i].operands) << expected[i].name;
    EXPECT_EQ(block.ops[i].firstResult, expected[i].firstResult) << expected[i].name;
  }
  EXPECT_EQ(types.valueType(block.ops[1].resultTypes.at(0), "x @ y"), Type::tensor(DType::F32, {4, 2}));
  EXPECT_TRUE(block.ops[5].resultTypes.empty());
}

TEST(BytecodeIrTest, DamagedIrIsAnErrorNeverACrash) {
  const std::string bytes = goldenBytecode();
  const Container c = readContainer(bytes, "golden.mlirbc");
  // The IR and properties sections, byte by byte, as entries.
  std::vector<Entry> sections = {{0, c.ir, false, c.irOffset}, {0, c.properties, false, c.propertiesOffset}};
  readWithEachByteDamaged(bytes, sections, [](const std::string& damaged) {
    const Container d = readContainer(damaged, "damaged.mlirbc");
    readIr(d, "damaged.mlirbc");
  });
}

}  // namespace
}  // namespace kiln::stablehlo::bytecode
