// The attributes of a portable artifact jaxlib 0.10.2 wrote (tests/stablehlo/bytecode/
// dot_tanh.mlirbc) decode into their fields: the module's attribute dictionary, the
// Python source locations JAX recorded, VHLO's strings, enums, tensors and result
// accuracy; damaged entries are errors, never crashes.
#include <cstring>
#include <string>

#include "stablehlo/bytecode_attributes.h"
#include "stablehlo/bytecode_test_util.h"
#include "support/error.h"

namespace kiln::stablehlo::bytecode {
namespace {

using Kind = DecodedAttribute::Kind;

class BytecodeAttributesTest : public ::testing::Test {
 protected:
  const std::string bytes_ = goldenBytecode();
  const Container container_ = readContainer(bytes_, "dot_tanh.mlirbc");
  TypeTable types_{container_, "dot_tanh.mlirbc"};
  AttributeTable attributes_{container_, types_, "dot_tanh.mlirbc"};
};

TEST_F(BytecodeAttributesTest, EveryEntryDecodes) {
  ASSERT_EQ(attributes_.size(), 52u);
  for (size_t i = 0; i < attributes_.size(); ++i)
    EXPECT_NE(attributes_.at(i).kind, Kind::Unsupported) << i << ": " << attributes_.at(i).unsupported;
}

TEST_F(BytecodeAttributesTest, TheModulesAttributes) {
  // {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}
  const DecodedAttribute& module = attributes_.at(7);
  ASSERT_EQ(module.kind, Kind::Dictionary);
  ASSERT_EQ(module.entries.size(), 3u);
  EXPECT_EQ(attributes_.stringAt(module.entries[0].first, "a key"), "jax.uses_shape_polymorphism");
  EXPECT_EQ(attributes_.stringAt(module.entries[1].first, "a key"), "mhlo.num_partitions");
  const DecodedAttribute& flag = attributes_.at(module.entries[0].second);
  ASSERT_EQ(flag.kind, Kind::Integer);
  EXPECT_EQ(types_.at(flag.type).element, DType::I1);
  EXPECT_EQ(flag.bits, 0u);
  const DecodedAttribute& partitions = attributes_.at(module.entries[1].second);
  ASSERT_EQ(partitions.kind, Kind::Integer);
  EXPECT_EQ(types_.at(partitions.type).element, DType::I32);
  EXPECT_EQ(partitions.bits, 1u);
}

TEST_F(BytecodeAttributesTest, LocationsPointAtThePythonLines) {
  // loc("/tmp/mkbc.py":6:6 to :37) and ("/tmp/mkbc.py":4:20 to :25)
  const DecodedAttribute& call = attributes_.at(19);
  ASSERT_EQ(call.kind, Kind::Location);
  EXPECT_EQ(call.enumKind, "file");
  EXPECT_EQ(call.string, "/tmp/mkbc.py");
  EXPECT_EQ(call.integers, (std::vector<int64_t>{6, 6, 37}));
  EXPECT_EQ(attributes_.at(24).integers, (std::vector<int64_t>{4, 20, 25}));
  // loc("x"): a name over the unknown location.
  const DecodedAttribute& x = attributes_.at(13);
  ASSERT_EQ(x.kind, Kind::Location);
  EXPECT_EQ(x.enumKind, "name");
  EXPECT_EQ(x.string, "x");
  ASSERT_EQ(x.elements.size(), 1u);
  EXPECT_EQ(attributes_.at(x.elements[0]).enumKind, "unknown");
  // jit(f)/dot_general: a name over a call site (f, called from <module>).
  const DecodedAttribute& dot = attributes_.at(20);
  EXPECT_EQ(dot.string, "jit(f)/dot_general");
  EXPECT_EQ(attributes_.at(dot.elements[0]).enumKind, "callsite");
}

TEST_F(BytecodeAttributesTest, VhloValues) {
  EXPECT_EQ(attributes_.stringAt(44, "sym_name"), "main");
  EXPECT_EQ(attributes_.stringAt(45, "sym_visibility"), "public");
  const DecodedAttribute& one = attributes_.at(46);  // dense<1.0> : tensor<f32>
  ASSERT_EQ(one.kind, Kind::Tensor);
  EXPECT_EQ(types_.valueType(one.type, "a constant"), Type::scalar(DType::F32));
  ASSERT_EQ(one.data.size(), 4u);
  float value;
  std::memcpy(&value, one.data.data(), 4);
  EXPECT_EQ(value, 1.0f);
  const DecodedAttribute& precision = attributes_.at(37);
  EXPECT_EQ(precision.kind, Kind::Enum);
  EXPECT_EQ(precision.enumKind, "precision");
  EXPECT_EQ(precision.value, 0u);  // DEFAULT
  const DecodedAttribute& accuracy = attributes_.at(50);  // tanh's default result accuracy
  EXPECT_EQ(accuracy.enumKind, "result_accuracy");
  EXPECT_EQ(accuracy.integers, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(attributes_.at(accuracy.elements[0]).enumKind, "result_accuracy_mode");
  EXPECT_THROW(attributes_.at(52), Error);
  EXPECT_THROW(attributes_.stringAt(46, "a name"), Error);
}

TEST(BytecodeAttributesDamageTest, DamagedAttributesAreErrorsNeverCrashes) {
  const std::string bytes = goldenBytecode();
  readWithEachByteDamaged(bytes, readContainer(bytes, "golden.mlirbc").attributes, [](const std::string& damaged) {
    const Container c = readContainer(damaged, "damaged.mlirbc");
    TypeTable types(c, "damaged.mlirbc");
    AttributeTable attributes(c, types, "damaged.mlirbc");
    for (size_t i = 0; i < attributes.size(); ++i) attributes.at(i);
  });
}

}  // namespace
}  // namespace kiln::stablehlo::bytecode
