// Differential testing: generated programs are valid, varied and reproducible; every
// executor agrees with the interpreter on a fixed set of them; results are compared bit
// for bit with NaN matching any NaN; the minimizer keeps what a failure needs.
#include "testing/differential.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "ir/verifier.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "testing/program_generator.h"

namespace kiln::testing {
namespace {

TEST(DifferentialTest, GeneratedProgramsAreValidVariedAndReproducible) {
  std::set<std::string> ops;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const std::string text = stablehlo::printModule(*generateProgram(seed));
    EXPECT_EQ(text, stablehlo::printModule(*generateProgram(seed))) << "seed " << seed;
    auto module = stablehlo::parseModule(text);  // (parsing verifies)
    walk(module->lookup("main")->body(), [&](Op& op) { ops.insert(std::string(op.name())); });
    interp::HostValues inputs = generateInputs(*module->lookup("main"), seed);
    EXPECT_EQ(inputs.size(), module->lookup("main")->numParams());
  }
  // The families the generator draws from all appear.
  for (const char* name : {"stablehlo.add", "stablehlo.compare", "stablehlo.select", "stablehlo.convert",
                           "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.transpose",
                           "stablehlo.reverse", "stablehlo.slice", "stablehlo.concatenate", "stablehlo.pad",
                           "stablehlo.reduce", "stablehlo.dot_general", "stablehlo.iota", "stablehlo.not",
                           "stablehlo.exponential", "stablehlo.convolution", "stablehlo.gather", "stablehlo.scatter",
                           "stablehlo.sort", "stablehlo.while", "stablehlo.if", "stablehlo.clamp"})
    EXPECT_TRUE(ops.count(name)) << name;
  EXPECT_GE(ops.size(), 45u);
}

// The fixed seed set (kiln fuzz runs more in .ci/run).
TEST(DifferentialTest, EveryExecutorAgreesWithTheInterpreter) {
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    auto module = generateProgram(seed);
    const std::string text = stablehlo::printModule(*module);
    std::optional<std::string> d = disagreement(text, generateInputs(*module->lookup("main"), seed));
    EXPECT_FALSE(d) << "seed " << seed << ": " << *d << "\n" << text;
  }
}

// Every disagreement kiln fuzz found, minimized and kept (tests/testing/fuzz_reproducers:
// each file says what went wrong, and its inputs' seed on a line "// --seed N").
TEST(DifferentialTest, TheReproducersOfFixedDisagreementsAgree) {
  const std::filesystem::path dir = std::filesystem::path(KILN_SOURCE_DIR) / "tests/testing/fuzz_reproducers";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("// --seed ");
    ASSERT_NE(at, std::string::npos) << entry.path();
    const uint64_t seed = std::stoull(text.substr(at + 10));
    auto module = stablehlo::parseModule(SourceBuffer::fromString(entry.path().string(), text));
    std::optional<std::string> d = disagreement(text, generateInputs(*module->lookup("main"), seed));
    EXPECT_FALSE(d) << entry.path().filename() << ": " << *d;
    ++files;
  }
  EXPECT_GE(files, 6);
}

// A program with transcendental math or float dots is compared within a tolerance; one
// without, bit for bit.
TEST(DifferentialTest, TheToleranceComesFromTheOps) {
  auto tol = [](const std::string& body) {
    return tolerance(*stablehlo::parseModule(SourceBuffer::fromString("<t>", body)));
  };
  EXPECT_EQ(tol(R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
})"), 0.0);
  const double f32 = tol(R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  return %0 : tensor<4xf32>
})");
  const double f16 = tol(R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = stablehlo.sine %x : tensor<4xf32>
  %1 = stablehlo.convert %0 : (tensor<4xf32>) -> tensor<4xf16>
  return %1 : tensor<4xf16>
})");
  EXPECT_GT(f32, 0.0);
  EXPECT_LT(f32, 1e-4);
  EXPECT_GT(f16, 100 * f32);  // the narrowest format sets it
  Literal a(Type::tensor(DType::F32, {1})), b(Type::tensor(DType::F32, {1}));
  a.setFloat(0, 2.0);
  b.setFloat(0, 2.0 * (1 + f32 / 2));
  EXPECT_TRUE(firstDifference({a}, {b}));
  EXPECT_FALSE(firstDifference({a}, {b}, f32));
  b.setFloat(0, 2.0 * (1 + 2 * f32));
  EXPECT_TRUE(firstDifference({a}, {b}, f32));
}

TEST(DifferentialTest, ResultsCompareBitForBitAndNaNMatchesAnyNaN) {
  Literal a(Type::tensor(DType::F32, {3})), b(Type::tensor(DType::F32, {3}));
  a.setFloat(0, 1.0);
  b.setFloat(0, 1.0);
  a.setBits(1, 0x7fc00000);  // a NaN and another NaN
  b.setBits(1, 0xffc00001);
  a.setFloat(2, 0.0);
  b.setFloat(2, 0.0);
  EXPECT_FALSE(firstDifference({a}, {b}));
  b.setFloat(2, -0.0);  // -0 is not +0, bitwise
  ASSERT_TRUE(firstDifference({a}, {b}));
  EXPECT_NE(firstDifference({a}, {b})->find("result 0 element 2"), std::string::npos);
  EXPECT_TRUE(firstDifference({a}, {a, a}));
}

TEST(DifferentialTest, TheMinimizerKeepsWhatTheFailureNeeds) {
  const std::string program = R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %a = stablehlo.negate %x : tensor<4xf32>
  %b = stablehlo.abs %a : tensor<4xf32>
  %c = stablehlo.multiply %b, %x : tensor<4xf32>
  %d = stablehlo.add %c, %a : tensor<4xf32>
  %e = stablehlo.not %y : tensor<4xi32>
  %f = stablehlo.add %e, %y : tensor<4xi32>
  return %d, %f : tensor<4xf32>, tensor<4xi32>
})";
  auto fails = [](const std::string& text) { return text.find("stablehlo.multiply") != std::string::npos; };
  const std::string small = minimize(program, fails);
  EXPECT_TRUE(fails(small)) << small;
  auto module = stablehlo::parseModule(small);
  int ops = 0;
  walk(module->lookup("main")->body(), [&](Op& op) {
    ops += !op.info().isTerminator() && op.info().category != OpCategory::Constant;
  });
  EXPECT_EQ(ops, 1) << small;
}

}  // namespace
}  // namespace kiln::testing
