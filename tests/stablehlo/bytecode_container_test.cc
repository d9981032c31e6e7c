// The MLIR bytecode container: a StableHLO portable artifact jaxlib 0.10.2 wrote
// (tests/stablehlo/bytecode/dot_tanh.mlirbc: jax.export of tanh(x @ y) + 1 on f32[4,3] and
// f32[3,2]) reads into its strings, dialects, op names and attribute/type table; varints
// decode as the format says; and every cut or damaged copy of it is a Parse error, never
// a crash.
#include <string>

#include "stablehlo/bytecode_container.h"
#include "stablehlo/bytecode_test_util.h"
#include "support/error.h"

namespace kiln::stablehlo::bytecode {
namespace {

TEST(BytecodeContainerTest, ReadsWhatJaxlibWrites) {
  const std::string bytes = goldenBytecode();
  ASSERT_EQ(bytes.size(), 759u);
  ASSERT_TRUE(isBytecode(bytes));
  const Container c = readContainer(bytes, "dot_tanh.mlirbc");
  EXPECT_EQ(c.version, 6u);
  EXPECT_EQ(c.producer, "StableHLO_v1.15.0");
  ASSERT_EQ(c.dialects.size(), 2u);
  EXPECT_EQ(c.dialects[0].name, "builtin");
  EXPECT_EQ(c.dialects[1].name, "vhlo");
  std::vector<std::string> ops;
  for (const OpName& op : c.opNames) {
    ops.push_back(c.dialects[op.dialect].name + "." + op.name);
    EXPECT_EQ(op.registered, std::optional<bool>(true)) << ops.back();
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"builtin.module", "vhlo.func_v1", "vhlo.constant_v1", "vhlo.dot_general_v2",
                                           "vhlo.tanh_v2", "vhlo.broadcast_in_dim_v1", "vhlo.add_v1",
                                           "vhlo.return_v1"}));
  ASSERT_EQ(c.strings.size(), 27u);
  EXPECT_EQ(c.strings[12], "jax.uses_shape_polymorphism");
  EXPECT_EQ(c.strings[20], "jit(f)/dot_general");  // a location: kept for the user's line
  EXPECT_EQ(c.attributes.size(), 52u);
  EXPECT_EQ(c.types.size(), 12u);
  for (const Entry& e : c.attributes) EXPECT_TRUE(e.custom);  // builtin's and VHLO's own encodings
  EXPECT_EQ(c.ir.size(), 72u);
  EXPECT_EQ(c.properties.size(), 29u);
  EXPECT_TRUE(c.resources.empty());
}

TEST(BytecodeContainerTest, VarintsDecodeAsTheFormatSays) {
  const std::string name = "varints";
  // 6 in one byte; 300 in two (300 << 2 | 0b10); 2^40 in six; all 64 bits in nine.
  const std::string bytes = std::string("\x0d", 1) + std::string("\xb2\x04", 2) +
                            std::string("\x20\x00\x00\x00\x00\x40", 6) +
                            std::string("\x00\xff\xff\xff\xff\xff\xff\xff\xff", 9) + std::string("\x03\x09", 2);
  ByteReader r(bytes, 0, name);
  EXPECT_EQ(r.varint("a"), 6u);
  EXPECT_EQ(r.varint("b"), 300u);
  EXPECT_EQ(r.varint("c"), uint64_t{1} << 40);
  EXPECT_EQ(r.varint("d"), ~uint64_t{0});
  EXPECT_EQ(r.signedVarint("e"), -1);  // zigzag 1
  EXPECT_EQ(r.signedVarint("f"), 2);   // zigzag 4 = 2
  EXPECT_TRUE(r.done());
  try {
    r.varint("the count");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Parse);
    EXPECT_EQ(std::string(e.what()), "varints: bytecode offset 20: the bytes end before the count");
  }
}

// A Parse error naming what is wrong, or (for a damaged byte that still makes sense) a
// container; never a crash.
std::string outcome(const std::string& bytes) {
  try {
    readContainer(bytes, "damaged.mlirbc");
    return "read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Parse) << e.what();
    return e.what();
  }
}

TEST(BytecodeContainerTest, CutOrDamagedBytesAreParseErrors) {
  const std::string bytes = goldenBytecode();
  // Every cut is an error, but the one that drops the last section whole: the properties
  // section (its 29 bytes and 2 of header), which the container may lack (the reader of
  // the IR, which needs it, says so).
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    const std::string what = outcome(bytes.substr(0, cut));
    if (cut != bytes.size() - 31) {
      EXPECT_NE(what, "read") << "cut at " << cut;
    }
  }
  for (size_t at = 0; at < bytes.size(); ++at)
    for (uint8_t value : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[at] = static_cast<char>(value);
      outcome(damaged);  // (any outcome but a crash)
    }
  EXPECT_NE(outcome("MLIR").find("not MLIR bytecode"), std::string::npos);
  EXPECT_NE(outcome(std::string("ML\xefR\x0f", 5)).find("unsupported: bytecode version 7 (kiln reads 1 to 6)"),
            std::string::npos);
  // A section id past MLIR's, after a valid header.
  EXPECT_NE(outcome(std::string("ML\xefR\x0dp\0\x0a\x01", 9)).find("section id 10"), std::string::npos);
}

}  // namespace
}  // namespace kiln::stablehlo::bytecode
