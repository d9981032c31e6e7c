// Bad input: every error names the line and column of the problem and says what is
// wrong; valid input kiln does not handle says "unsupported: ...".
#include <gtest/gtest.h>

#include "stablehlo/parser.h"
#include "support/error.h"

namespace kiln::stablehlo {
namespace {

struct BadInput {
  const char* name;
  const char* text;
  ErrorKind kind;
  const char* at;       // the error points at the first occurrence of this text
  const char* message;  // a substring of the message
};

SourcePos positionOf(const std::string& text, const char* at) {
  size_t offset = text.find(at);
  return SourceBuffer("x", text).posOf(offset == std::string::npos ? 0 : offset);
}

const BadInput kCases[] = {
    {"undefined_value", "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.add %a, %b : tensor<f32>\n  return %0 : tensor<f32>\n}",
     ErrorKind::Parse, "%b", "use of undefined value %b"},
    {"unknown_op", "func.func @f() {\n  %0 = stablehlo.frobnicate : tensor<f32>\n}", ErrorKind::Parse,
     "stablehlo.frobnicate", "unknown op 'stablehlo.frobnicate'"},
    {"other_dialect", "func.func @f() {\n  %0 = tensor.empty() : tensor<2xf32>\n}", ErrorKind::Unsupported,
     "tensor.empty", "unsupported: op 'tensor.empty'"},
    {"dynamic_shape", "func.func @f(%a: tensor<?x2xf32>) {\n  return\n}", ErrorKind::Unsupported, "?x2",
     "unsupported: dynamic shapes"},
    {"quantized", "func.func @f(%a: tensor<2x!quant.uniform<i8:f32, 0.1>>) {\n  return\n}", ErrorKind::Unsupported,
     "!quant", "unsupported: quantized types"},
    {"operand_type_mismatch", "func.func @f(%a: tensor<2xf32>) {\n  %0 = stablehlo.negate %a : tensor<3xf32>\n  return\n}",
     ErrorKind::Parse, "tensor<3xf32>", "operand 0 has type tensor<2xf32> but the op's type says tensor<3xf32>"},
    {"result_count", "func.func @f(%a: tensor<f32>) {\n  %0, %1 = stablehlo.negate %a : tensor<f32>\n  return\n}",
     ErrorKind::Parse, "%0, %1", "has 1 result(s) but 2 name(s) are given"},
    {"dense_shape", "func.func @f() {\n  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<2xi32>\n  return\n}",
     ErrorKind::Parse, "[1, 2, 3]", "dense literal has shape [3] but the type is tensor<2xi32>"},
    {"dense_ragged", "func.func @f() {\n  %0 = stablehlo.constant dense<[[1], [2, 3]]> : tensor<2x2xi32>\n  return\n}",
     ErrorKind::Parse, "[2, 3]", "not rectangular"},
    {"int_range", "func.func @f() {\n  %0 = stablehlo.constant dense<300> : tensor<i8>\n  return\n}", ErrorKind::Parse,
     "300", "integer 300 does not fit i8"},
    {"hex_size", "func.func @f() {\n  %0 = stablehlo.constant dense<\"0x0102\"> : tensor<3xi32>\n  return\n}",
     ErrorKind::Parse, "\"0x0102\"", "hex literal has 2 bytes but tensor<3xi32> needs 12"},
    {"unterminated_string", "func.func @f() {\n  %0 = stablehlo.custom_call @\"abc() : () -> ()\n}",
     ErrorKind::Parse, "\"abc", "not terminated"},
    {"truncated", "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.negate %a", ErrorKind::Parse,
     "<end>", "expected ':'"},
    {"truncated_region", "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.negate %a : tensor<f32>\n",
     ErrorKind::Parse, "<end>", "expected '}' to close the body of @f"},
    {"redefined", "func.func @f(%a: tensor<f32>) {\n  %a = stablehlo.negate %a : tensor<f32>\n  return\n}",
     ErrorKind::Parse, "%a = ", "redefinition of value %a"},
    {"bad_enum", "func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.compare LOL, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>\n  return\n}",
     ErrorKind::Parse, "LOL", "'LOL' is not a stablehlo.comparison_direction value"},
    {"missing_attribute", "func.func @f(%a: tensor<2xf32>) {\n  %0 = \"stablehlo.transpose\"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  return\n}",
     ErrorKind::Verify, "\"stablehlo.transpose\"", "stablehlo.transpose: needs the attribute 'permutation'"},
    {"wrong_attribute_kind", "func.func @f(%a: tensor<2xf32>) {\n  %0 = \"stablehlo.transpose\"(%a) {permutation = \"x\"} : (tensor<2xf32>) -> tensor<2xf32>\n  return\n}",
     ErrorKind::Parse, "{permutation", "attribute 'permutation' of stablehlo.transpose: expected an array of i64"},
    {"missing_return", "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.negate %a : tensor<f32>\n}",
     ErrorKind::Verify, "func.func", "@f: the body must end with func.return"},
    {"return_types", "func.func @f(%a: tensor<f32>) -> tensor<i32> {\n  return %a : tensor<f32>\n}", ErrorKind::Verify,
     "return", "returns (tensor<f32>) but @f declares (tensor<i32>)"},
    {"call_unknown", "func.func @f() {\n  call @g() : () -> ()\n  return\n}", ErrorKind::Verify, "call",
     "refers to @g, which is not defined"},
    {"generic_only_pretty", "func.func @f(%a: tensor<2xf32>) {\n  %0 = stablehlo.gather %a : tensor<2xf32>\n  return\n}",
     ErrorKind::Parse, "stablehlo.gather", "has no pretty form"},
    {"unreachable_block", "func.func @f() {\n  return\n^bb1:\n  return\n}", ErrorKind::Parse, "func.func",
     "the entry block does not end with a branch"},
    {"branch_to_nowhere", "func.func @f() {\n  cf.br ^bb7\n^bb1:\n  return\n}", ErrorKind::Parse, "cf.br",
     "branch to undefined block ^bb7"},
    {"branch_arguments", "func.func @f(%a: tensor<f32>) {\n  cf.br ^bb1\n^bb1(%x: tensor<f32>):\n  return\n}",
     ErrorKind::Parse, "cf.br", "branch arguments do not match the arguments of ^bb1"},
    {"bad_char", "func.func @f() {\n  `\n}", ErrorKind::Parse, "`", "unexpected character"},
    {"module_twice", "module {\n}\nmodule @x {\n}", ErrorKind::Parse, "module @x", "only one module is allowed per file part"},
    {"undefined_loc_alias", "func.func @f() {\n  return loc(#loc9)\n}", ErrorKind::Parse, "#loc9",
     "undefined location alias #loc9"},
    {"loc_cycle", "func.func @f() {\n  return loc(#a)\n}\n#a = loc(#b)\n#b = loc(#a)", ErrorKind::Parse, "loc(#b)",
     "cycle"},
    {"conv_dims", "func.func @f() {\n  %0 = stablehlo.constant {d = #stablehlo.conv<[b, 0, f]x[0, i, i]->[b, 0, f]>} dense<0> : tensor<i32>\n  return\n}",
     ErrorKind::Parse, "[0, i, i]", "'i' appears twice"},
};

// Test names and failure messages show the case name, not the struct's bytes.
void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

class ParserErrorsTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(ParserErrorsTest, ReportsKindPositionAndMessage) {
  const BadInput& c = GetParam();
  auto source = SourceBuffer::fromString("bad.mlir", c.text);
  try {
    parseModule(source);
    FAIL() << "no error for " << c.name;
  } catch (const Error& e) {
    std::string text = c.text;
    SourcePos at = std::string_view(c.at) == "<end>" ? source->posOf(text.size()) : positionOf(text, c.at);
    EXPECT_EQ(e.kind(), c.kind) << e.format();
    EXPECT_EQ(e.pos(), at) << e.format() << "\nexpected at " << at.line << ":" << at.col;
    EXPECT_NE(e.message().find(c.message), std::string::npos) << e.format();
    // The formatted diagnostic starts with file:line:col and shows a caret.
    std::string prefix = "bad.mlir:" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": error: ";
    EXPECT_EQ(e.format().rfind(prefix, 0), 0u) << e.format();
    EXPECT_NE(e.format().find('^'), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(BadInputs, ParserErrorsTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ParserErrorsTest, DeepNestingIsAnErrorNotACrash) {
  std::string deepAttr = "func.func @f() attributes {a = " + std::string(100000, '[') + "} {\n  return\n}";
  std::string deepType = "func.func @f(%a: " + std::string(100000, 't') + ") {\n  return\n}";
  std::string deepTuple;
  for (int i = 0; i < 50000; ++i) deepTuple += "tuple<";
  deepTuple = "func.func @f(%a: " + deepTuple + ") {\n  return\n}";
  for (const std::string& text : {deepAttr, deepTuple}) {
    try {
      parseModule(text);
      FAIL() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("nesting is too deep"), std::string::npos) << e.message();
    }
  }
  EXPECT_THROW(parseModule(deepType), Error);
}

TEST(ParserErrorsTest, EveryPrefixOfAValidFileFailsCleanly) {
  // Truncated files: each prefix either parses or throws kiln::Error, never crashes.
  std::string text = R"(module @m attributes {a = 1 : i32} {
  func.func @main(%x: tensor<2x2xf32> loc("x")) -> tensor<2xf32> {
    %c = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %0 = stablehlo.add %x, %c : tensor<2x2xf32> loc(#loc1)
    %i = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %i) applies stablehlo.add across dimensions = [1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
#loc1 = loc("f.py":1:2)
)";
  size_t parsed = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    try {
      parseModule(SourceBuffer::fromString("t", text.substr(0, n)));
      ++parsed;
    } catch (const Error&) {
    }
  }
  EXPECT_GE(parsed, 1u);  // at least the whole text
}

}  // namespace
}  // namespace kiln::stablehlo
