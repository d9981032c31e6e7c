// dense_resource<name> constants read from the file's {-# dialect_resources #-} blob
// section, and JAX's dense_resource<__elided__>: zeros marked elided, printed back as
// they were written, rejected by everything that runs a program.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "ir/elided_constants.h"
#include "ir/fingerprint.h"
#include "passes/pass_manager.h"
#include "stablehlo/parse_error.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "stablehlo/round_trip.h"
#include "support/error.h"

namespace kiln::stablehlo {
namespace {

// A program whose constants are blobs: f32 [1.0, 2.0], i32 [-1, 258] and i1 [true, false, true].
std::string withBlobs(const std::string& f32Blob, const std::string& extra = "") {
  return R"(module {
  func.func @main() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xi1>) {
    %0 = stablehlo.constant dense_resource<weights> : tensor<2xf32>
    %1 = "stablehlo.constant"() <{value = dense_resource<"ints.0"> : tensor<2xi32>}> : () -> tensor<2xi32>
    %2 = stablehlo.constant dense_resource<mask> : tensor<3xi1>
    return %0, %1, %2 : tensor<2xf32>, tensor<2xi32>, tensor<3xi1>
  }
}
{-#
  dialect_resources: {
    builtin: {
      weights: ")" +
         f32Blob + R"(",
      "ints.0": "0x08000000FFFFFFFF02010000",
      mask: "0x01000000010001")" +
         extra + R"(
    }
  }
#-}
)";
}
const std::string kF32Blob = "0x040000000000803F00000040";  // alignment 4, then 1.0f and 2.0f

TEST(DenseResourceTest, BlobsBecomeTheConstantsValues) {
  auto m = parseModule(SourceBuffer::fromString("r.mlir", withBlobs(kF32Blob)));
  const Region& body = m->functions()[0]->body();
  auto values = [&](size_t i) {
    return (*std::next(body.ops().begin(), static_cast<long>(i)))->attr("value").asDense();
  };
  EXPECT_EQ(values(0).floatAt(0), 1.0);
  EXPECT_EQ(values(0).floatAt(1), 2.0);
  EXPECT_EQ(values(1).intAt(0), -1);
  EXPECT_EQ(values(1).intAt(1), 258);
  EXPECT_TRUE(values(2).boolAt(0));
  EXPECT_FALSE(values(2).boolAt(1));
  EXPECT_TRUE(values(2).boolAt(2));
  // The same module as the inline literals, and it prints (and reads back) as them.
  auto inlined = parseModule(std::string(R"(module {
  func.func @main() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xi1>) {
    %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %1 = stablehlo.constant dense<[-1, 258]> : tensor<2xi32>
    %2 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
    return %0, %1, %2 : tensor<2xf32>, tensor<2xi32>, tensor<3xi1>
  }
})"));
  EXPECT_EQ(printModule(*m), printModule(*inlined));
  EXPECT_EQ(fingerprint(*m), fingerprint(*inlined));
  RoundTripResult r = checkRoundTrip(SourceBuffer::fromString("r.mlir", withBlobs(kF32Blob)));
  EXPECT_EQ(r.status, RoundTripResult::Status::Ok) << r.message;
}

TEST(DenseResourceTest, BadBlobsAreErrorsWithTheirPosition) {
  // Too few bytes for the type: at the use.
  EXPECT_NE(test_util::parseErrorOf(withBlobs("0x040000000000803F"), "r.mlir")
                .find("r.mlir:3:44: error: resource 'weights' holds 4 bytes of data but "
                      "tensor<2xf32> needs 8"),
            std::string::npos)
      << test_util::parseErrorOf(withBlobs("0x040000000000803F"), "r.mlir");
  // The alignment prefix must be a power of two (a blob without one is misread).
  EXPECT_NE(test_util::parseErrorOf(withBlobs("0x0000803F00000040"), "r.mlir")
                .find("r.mlir:12:16: error: resource 'weights' starts with alignment"),
            std::string::npos)
      << test_util::parseErrorOf(withBlobs("0x0000803F00000040"), "r.mlir");
  EXPECT_NE(test_util::parseErrorOf(withBlobs("0x04000000zz00803F00000040"), "r.mlir")
                .find("r.mlir:12:16: error: bad hex digit in resource 'weights'"),
            std::string::npos);
  EXPECT_NE(test_util::parseErrorOf(withBlobs("0x0400000000803F00000040F"), "r.mlir").find("odd number of hex digits"),
            std::string::npos);
  EXPECT_NE(test_util::parseErrorOf(withBlobs("0x0400"), "r.mlir").find("shorter than its 4-byte alignment prefix"),
            std::string::npos);
  EXPECT_NE(test_util::parseErrorOf(withBlobs("1234"), "r.mlir").find("is not a hex string"), std::string::npos);
  EXPECT_NE(test_util::parseErrorOf(withBlobs(kF32Blob, ",\n      mask: \"0x01000000010001\""), "r.mlir")
                .find("resource 'mask' is given twice"),
            std::string::npos);
  // Names that are not there.
  std::string unknown = withBlobs(kF32Blob);
  unknown.replace(unknown.find("dense_resource<mask>"), 20, "dense_resource<nope>");
  EXPECT_NE(test_util::parseErrorOf(unknown, "r.mlir").find(
                "r.mlir:5:44: error: unknown resource 'nope' in dense_resource<...> (not in the "
                "file's dialect_resources section)"),
            std::string::npos)
      << test_util::parseErrorOf(unknown, "r.mlir");
  const std::string noSection = withBlobs(kF32Blob).substr(0, withBlobs(kF32Blob).find("{-#"));
  EXPECT_NE(
      test_util::parseErrorOf(noSection, "r.mlir").find("unknown resource 'weights' in dense_resource<...> (the file has no"),
      std::string::npos);
  // A section cut short anywhere is an error, never a crash.
  const std::string whole = withBlobs(kF32Blob);
  for (size_t cut = whole.find("{-#"); cut < whole.size() - 2; ++cut)
    EXPECT_NE(test_util::parseErrorOf(whole.substr(0, cut), "r.mlir"), "no error") << "cut at " << cut;
}

const char* kElided = R"(module @jit_f {
  func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<2x4xf32> {
    %w = stablehlo.constant dense_resource<__elided__> : tensor<3x4xf32> loc("params/w")
    %b = "stablehlo.constant"() <{value = dense_resource<__elided__> : tensor<4xf32>}> : () -> tensor<4xf32>
    %0 = stablehlo.dot_general %arg0, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x4xf32>
    return %2 : tensor<2x4xf32>
  }
}
)";

TEST(ElidedConstantTest, ReadAsMarkedConstantsAndPrintedBack) {
  auto m = parseModule(SourceBuffer::fromString("e.mlir", kElided));
  const Region& body = m->functions()[0]->body();
  size_t elided = 0;
  for (const auto& op : body.ops()) elided += isElidedConstant(*op);
  EXPECT_EQ(elided, 2u);
  const std::string printed = printModule(*m);
  EXPECT_NE(
      printed.find(
          "stablehlo.constant dense_resource<__elided__> : tensor<3x4xf32> loc(\"params/w\")"),
      std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("kiln.elided"), std::string::npos) << printed;
  RoundTripResult r = checkRoundTrip(SourceBuffer::fromString("e.mlir", kElided));
  EXPECT_EQ(r.status, RoundTripResult::Status::Ok) << r.message;
  // The generic form says the same, and reads back to the same module.
  PrintOptions generic;
  generic.generic = true;
  const std::string genericText = printModule(*m, generic);
  EXPECT_NE(genericText.find("<{value = dense_resource<__elided__> : tensor<4xf32>}>"),
            std::string::npos)
      << genericText;
  EXPECT_EQ(fingerprint(*parseModule(genericText)), fingerprint(*m));
  // An elided constant is not the same program as one of zeros.
  std::string zeros = kElided;
  zeros.replace(zeros.find("dense_resource<__elided__>"), 26, "dense<0.0>");
  EXPECT_NE(fingerprint(*parseModule(zeros)), fingerprint(*m));
}

TEST(ElidedConstantTest, RunningIsAnErrorThatNamesTheConstant) {
  auto m = parseModule(SourceBuffer::fromString("e.mlir", kElided));
  const std::string expected =
      "e.mlir:3:10: error: the constant tensor<3x4xf32> at \"params/w\" has no data "
      "(dense_resource<__elided__>: the exporter left it out); run with --fill-elided SEED";
  try {
    interp::Interpreter interp(*m);
    ADD_FAILURE() << "the interpreter took an elided constant";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime);
    EXPECT_NE(e.format().find(expected), std::string::npos) << e.format();
  }
  try {
    passes::PassContext context;
    passes::runPipeline(*m, std::vector<std::string>{"simplify"}, context);
    ADD_FAILURE() << "the pipeline took an elided constant";
  } catch (const Error& e) {
    EXPECT_NE(e.format().find(expected), std::string::npos) << e.format();
  }
}

TEST(ElidedConstantTest, OnlyConstantsMayBeElided) {
  const std::string text = R"(func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @f(%x) {backend_config = dense_resource<__elided__> : tensor<2xf32>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
})";
  EXPECT_NE(
      test_util::parseErrorOf(text, "r.mlir").find(
          "r.mlir:2:55: error: unsupported: dense_resource<__elided__> in stablehlo.custom_call "
          "(only constants may have elided data)"),
      std::string::npos)
      << test_util::parseErrorOf(text, "r.mlir");
}

}  // namespace
}  // namespace kiln::stablehlo
