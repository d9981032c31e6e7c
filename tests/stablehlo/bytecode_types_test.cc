// The types of a portable artifact jaxlib 0.10.2 wrote (tests/stablehlo/bytecode/
// dot_tanh.mlirbc) decode into kiln's: builtin and VHLO element types, tensors and the
// function's signature; a type that refers to itself is a Parse error, and a type kiln
// does not have is an Unsupported error naming it only when a value has it.
#include <string>

#include "stablehlo/bytecode_test_util.h"
#include "stablehlo/bytecode_types.h"
#include "support/error.h"

namespace kiln::stablehlo::bytecode {
namespace {

TEST(BytecodeTypesTest, DecodeAsKilnTypes) {
  const std::string bytes = goldenBytecode();
  const Container c = readContainer(bytes, "dot_tanh.mlirbc");
  TypeTable types(c, "dot_tanh.mlirbc");
  ASSERT_EQ(types.size(), 12u);
  auto element = [&](size_t i) {
    EXPECT_EQ(types.at(i).kind, DecodedType::Kind::Element) << i;
    return types.at(i).element;
  };
  EXPECT_EQ(element(0), DType::I1);   // builtin i1
  EXPECT_EQ(element(1), DType::I32);  // builtin i32
  EXPECT_EQ(element(3), DType::F32);  // vhlo f32
  EXPECT_EQ(element(7), DType::I64);
  EXPECT_EQ(types.valueType(2, "a result"), Type::tensor(DType::F32, {4, 2}));
  EXPECT_EQ(types.valueType(4, "x"), Type::tensor(DType::F32, {4, 3}));
  EXPECT_EQ(types.valueType(5, "y"), Type::tensor(DType::F32, {3, 2}));
  EXPECT_EQ(types.valueType(6, "a constant"), Type::scalar(DType::F32));
  EXPECT_EQ(types.valueType(3, "an element"), Type::scalar(DType::F32));  // an element type as a scalar
  EXPECT_EQ(types.valueType(11, "dims"), Type::tensor(DType::I64, {0}));
  const DecodedType& main = types.at(9);
  ASSERT_EQ(main.kind, DecodedType::Kind::Function);
  EXPECT_EQ(main.inputs, (std::vector<Type>{Type::tensor(DType::F32, {4, 3}), Type::tensor(DType::F32, {3, 2})}));
  EXPECT_EQ(main.results, (std::vector<Type>{Type::tensor(DType::F32, {4, 2})}));
  try {
    types.valueType(10, "an operand");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(std::string(e.what()), "unsupported: an operand of type none (dot_tanh.mlirbc)");
  }
}

TEST(BytecodeTypesTest, ATypeThatRefersToItselfIsAParseError) {
  std::string bytes = goldenBytecode();
  const Container original = readContainer(bytes, "cycle.mlirbc");
  // tensor<4x3xf32>: VHLO's code 20, rank 2, sizes 4 and 3, then its element type's
  // index, which now names the tensor type itself.
  const Entry& tensor = original.types[4];
  ASSERT_EQ(tensor.bytes, std::string_view("\x29\x05\x11\x0d\x07", 5));
  bytes[tensor.offset + 4] = '\x09';
  const Container c = readContainer(bytes, "cycle.mlirbc");
  TypeTable types(c, "cycle.mlirbc");
  try {
    types.at(4);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Parse);
    EXPECT_NE(std::string(e.what()).find("type 4 refers to itself"), std::string::npos) << e.what();
  }
  EXPECT_THROW(types.at(12), Error);  // past the table
}

TEST(BytecodeTypesTest, DamagedTypesAreErrorsNeverCrashes) {
  const std::string bytes = goldenBytecode();
  readWithEachByteDamaged(bytes, readContainer(bytes, "golden.mlirbc").types, [](const std::string& damaged) {
    const Container c = readContainer(damaged, "damaged.mlirbc");
    TypeTable types(c, "damaged.mlirbc");
    for (size_t i = 0; i < types.size(); ++i) types.at(i);
  });
}

}  // namespace
}  // namespace kiln::stablehlo::bytecode
