// The printer: canonical pretty forms, the generic form, floats and dense literals.
#include "stablehlo/printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "stablehlo/parser.h"

namespace kiln::stablehlo {
namespace {

TEST(PrinterTest, Floats) {
  EXPECT_EQ(printFloat(1.0, DType::F32), "1.000000e+00");
  EXPECT_EQ(printFloat(-0.0, DType::F64), "-0.000000e+00");
  EXPECT_EQ(printFloat(static_cast<float>(0.1), DType::F32), "1.000000e-01");
  EXPECT_EQ(printFloat(0.1, DType::F64), "1.000000e-01");
  EXPECT_EQ(printFloat(1.0 / 3.0, DType::F64), "3.333333333333333e-01");
  EXPECT_EQ(printFloat(static_cast<float>(3.14159265), DType::F32), "3.1415927e+00");
  EXPECT_EQ(printFloat(std::numeric_limits<double>::infinity(), DType::F32), "0x7F800000");
  EXPECT_EQ(printFloat(-std::numeric_limits<double>::infinity(), DType::F16), "0xFC00");
  EXPECT_EQ(printFloat(std::nan(""), DType::F64), "0x7FF8000000000000");
  EXPECT_EQ(printFloat(std::nan(""), DType::BF16), "0x7FC0");
}

TEST(PrinterTest, DenseLiteralForms) {
  std::string text = R"(module {
  func.func @main() {
    %0 = stablehlo.constant dense<5> : tensor<3xi32>
    %1 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xui8>
    %2 = stablehlo.constant dense<> : tensor<0xf32>
    %3 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %4 = stablehlo.constant dense<(1.500000e+00,-2.000000e+00)> : tensor<complex<f64>>
    %5 = stablehlo.constant dense<[0x7FC00000, 1.000000e+00]> : tensor<2xf32>
    %6 = stablehlo.constant dense<[-2, 1]> : tensor<2xi2>
    return
  }
}
)";
  EXPECT_EQ(printModule(*parseModule(text)), text);
}

TEST(PrinterTest, LargeLiteralsUseHex) {
  std::string values;
  for (int i = 0; i < 101; ++i) values += (i ? ", " : "") + std::to_string(i);
  auto m = parseModule("func.func @main() {\n  %0 = stablehlo.constant dense<[" + values +
                       "]> : tensor<101xi8>\n  return\n}");
  std::string printed = printModule(*m);
  EXPECT_NE(printed.find("dense<\"0x000102030405"), std::string::npos) << printed;
  PrintOptions wide;
  wide.hexThreshold = 1000;
  EXPECT_NE(printModule(*m, wide).find("dense<[0, 1, 2,"), std::string::npos);
}

TEST(PrinterTest, GenericFormReadsBack) {
  std::string text = R"(module {
  func.func @main(%arg0: tensor<2xf32>) -> tensor<2xi1> {
    %0 = stablehlo.compare GT, %arg0, %arg0, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    return %0 : tensor<2xi1>
  }
}
)";
  PrintOptions generic;
  generic.generic = true;
  std::string g = printModule(*parseModule(text), generic);
  EXPECT_NE(g.find("\"stablehlo.compare\"(%arg0, %arg0) <{compare_type = #stablehlo<comparison_type FLOAT>, "
                   "comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2xf32>, "
                   "tensor<2xf32>) -> tensor<2xi1>"),
            std::string::npos)
      << g;
  EXPECT_EQ(printModule(*parseModule(g)), text);
}

TEST(PrinterTest, DefaultsAreLeftOut) {
  auto m = parseModule(R"(
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %0 = stablehlo.custom_call @f(%x) {has_side_effect = false, api_version = 1 : i32} : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    })");
  std::string printed = printModule(*m);
  EXPECT_NE(printed.find("stablehlo.custom_call @f(%arg0) : (tensor<f32>) -> tensor<f32>"), std::string::npos)
      << printed;
}

TEST(PrinterTest, SymbolsThatAreNotIdentifiersAreQuoted) {
  auto m = parseModule(R"(
    func.func private @"-weird name"(%x: tensor<f32>) -> tensor<f32> {
      return %x : tensor<f32>
    }
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %0 = call @"-weird name"(%x) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    })");
  std::string printed = printModule(*m);
  EXPECT_NE(printed.find("func.func private @\"-weird name\"("), std::string::npos) << printed;
  EXPECT_NE(printed.find("call @\"-weird name\"(%arg0)"), std::string::npos) << printed;
  EXPECT_EQ(printModule(*parseModule(printed)), printed);
}

}  // namespace
}  // namespace kiln::stablehlo
