// The fully generic form of a whole file ("builtin.module" and "func.func" as generic
// ops, what mlir-opt --mlir-print-op-generic writes) reads into the same module as its
// pretty spelling, in both MLIR styles: attributes as <{properties}> before the region
// (newer) and as a dictionary after it (older).
#include <gtest/gtest.h>

#include "ir/fingerprint.h"
#include "stablehlo/parse_error.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "stablehlo/round_trip.h"
#include "support/error.h"

namespace kiln::stablehlo {
namespace {

const char* kPretty = R"(
module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {jax.arg_info = "x"} loc("x")) -> (tensor<3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %0) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = call @helper(%1) : (tensor<3xf32>) -> tensor<3xf32>
    return %2 : tensor<3xf32>
  } loc("main.py":3:1)
  func.func private @helper(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.negate %arg0 : tensor<3xf32> loc("neg")
    return %0 : tensor<3xf32>
  }
}
)";

// As newer MLIR prints it: inherent attributes in <{...}>.
const char* kGenericProperties = R"(#loc1 = loc("x")
"builtin.module"() <{sym_name = "jit_f"}> ({
  "func.func"() <{arg_attrs = [{jax.arg_info = "x"}], function_type = (tensor<2x3xf32>) -> tensor<3xf32>, res_attrs = [{jax.result_info = ""}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x3xf32> loc("x")):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %3 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%3) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = "func.call"(%1) <{callee = @helper}> : (tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%2) : (tensor<3xf32>) -> ()
  }) : () -> () loc(#loc2)
  "func.func"() <{function_type = (tensor<3xf32>) -> tensor<3xf32>, sym_name = "helper", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3xf32>):
    %0 = "stablehlo.negate"(%arg0) : (tensor<3xf32>) -> tensor<3xf32> loc("neg")
    "func.return"(%0) : (tensor<3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32} : () -> ()
#loc2 = loc("main.py":3:1)
)";

// As older MLIR prints it: every attribute in the dictionary after the region.
const char* kGenericDictionary = R"(
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<2x3xf32> loc("x")):
    %0 = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %3 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%3) : (tensor<f32>) -> ()
    }) {dimensions = dense<0> : tensor<1xi64>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = "func.call"(%1) {callee = @helper} : (tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%2) : (tensor<3xf32>) -> ()
  }) {arg_attrs = [{jax.arg_info = "x"}], function_type = (tensor<2x3xf32>) -> tensor<3xf32>, res_attrs = [{jax.result_info = ""}], sym_name = "main"} : () -> () loc("main.py":3:1)
  "func.func"() ({
  ^bb0(%arg0: tensor<3xf32>):
    %0 = "stablehlo.negate"(%arg0) : (tensor<3xf32>) -> tensor<3xf32> loc("neg")
    "func.return"(%0) : (tensor<3xf32>) -> ()
  }) {function_type = (tensor<3xf32>) -> tensor<3xf32>, sym_name = "helper", sym_visibility = "private"} : () -> ()
}) {mhlo.num_partitions = 1 : i32, sym_name = "jit_f"} : () -> ()
)";

TEST(GenericFileTest, ReadsLikeThePrettyForm) {
  auto pretty = parseModule(std::string(kPretty));
  const std::string expected = printModule(*pretty);
  for (const char* text : {kGenericProperties, kGenericDictionary}) {
    auto generic = parseModule(std::string(text));
    EXPECT_EQ(printModule(*generic), expected);
    EXPECT_EQ(fingerprint(*generic), fingerprint(*pretty));
    // What the pretty form carries besides the ops: names, visibility, argument and
    // result attributes, locations.
    EXPECT_EQ(generic->name, "jit_f");
    ASSERT_EQ(generic->functions().size(), 2u);
    const Function& main = *generic->functions()[0];
    EXPECT_EQ(main.visibility, Visibility::Public);
    EXPECT_EQ(generic->functions()[1]->visibility, Visibility::Private);
    EXPECT_TRUE(findAttr(main.argAttrs[0], "jax.arg_info"));
    EXPECT_TRUE(findAttr(main.resultAttrs[0], "jax.result_info"));
    EXPECT_EQ(main.argLocs[0].str(), "\"x\"");
    EXPECT_EQ(main.loc.str(), "\"main.py\":3:1");
  }
}

TEST(GenericFileTest, RoundTrips) {
  for (const char* text : {kGenericProperties, kGenericDictionary}) {
    RoundTripResult r = checkRoundTrip(SourceBuffer::fromString("generic.mlir", text));
    EXPECT_EQ(r.status, RoundTripResult::Status::Ok) << r.message;
  }
}

// The generic function form without the module around it, and one without parameters
// (MLIR leaves out the entry label then).
TEST(GenericFileTest, FunctionsWithoutModuleOrParameters) {
  auto m = parseModule(std::string(R"(
"func.func"() <{function_type = () -> tensor<i32>, sym_name = "main"}> ({
  %0 = "stablehlo.constant"() <{value = dense<7> : tensor<i32>}> : () -> tensor<i32>
  "func.return"(%0) : (tensor<i32>) -> ()
}) : () -> ()
)"));
  EXPECT_EQ(printModule(*m), printModule(*parseModule(std::string(R"(
func.func @main() -> tensor<i32> {
  %c = stablehlo.constant dense<7> : tensor<i32>
  return %c : tensor<i32>
})"))));
}

TEST(GenericFileTest, BadSignaturesAreErrorsAtTheFunction) {
  // The entry block must match function_type.
  const std::string mismatch = test_util::parseErrorOf(
      R"("func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "f"}> ({
^bb0(%arg0: tensor<3xf32>):
  "func.return"(%arg0) : (tensor<3xf32>) -> ()
}) : () -> ())");
  EXPECT_NE(
      mismatch.find(
          "<string>:1:85: error: entry block argument %arg0 of @f has type tensor<3xf32> but the "
          "function_type says tensor<2xf32>"),
      std::string::npos)
      << mismatch;
  EXPECT_NE(
      test_util::parseErrorOf(
          R"("func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "f"}> ({
  "func.return"() : () -> ()
}) : () -> ())")
          .find("the entry block of @f has 0 argument(s) but its function_type has 1"),
      std::string::npos);
  EXPECT_NE(test_util::parseErrorOf(R"("func.func"() <{function_type = () -> ()}> ({
  "func.return"() : () -> ()
}) : () -> ())")
                .find("<string>:1:1: error: \"func.func\" needs a sym_name"),
            std::string::npos);
  EXPECT_NE(test_util::parseErrorOf(R"("func.func"() <{sym_name = "f"}> ({
  "func.return"() : () -> ()
}) : () -> ())")
                .find("needs a function_type"),
            std::string::npos);
  EXPECT_NE(test_util::parseErrorOf(R"("func.func"() <{function_type = () -> (), sym_name = "f"}> ({
}) : () -> ())")
                .find("unsupported: function declarations without a body (@f)"),
            std::string::npos);
  // Truncated anywhere: a parse error, never a crash.
  const std::string whole = kGenericProperties;
  for (size_t cut = 0; cut < whole.size(); cut += 7) {
    try {
      parseModule(whole.substr(0, cut));
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace kiln::stablehlo
