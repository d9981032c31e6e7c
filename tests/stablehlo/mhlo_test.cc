// The MHLO dialect reads as StableHLO: a program written with mhlo.* ops, #mhlo
// attributes and !mhlo.token (in the pretty and the generic forms TensorFlow/XLA tools,
// torch-mlir and older JAX exports write) is the same module as its StableHLO spelling;
// MHLO-only ops are `unsupported: mhlo.X` errors at the op.
#include <gtest/gtest.h>

#include "ir/fingerprint.h"
#include "stablehlo/parse_error.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::stablehlo {
namespace {

const char* kMhlo = R"(module @m {
  func.func @main(%arg0: tensor<1x8x8x3xf32>, %arg1: tensor<3x3x3x4xf32>, %arg2: tensor<4x5xf32>, %arg3: tensor<4xi32>, %arg4: !mhlo.token, %arg5: tensor<16xf32>) -> (tensor<1x6x6x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xi1>, tensor<3x5xf32>, tensor<i32>, tensor<4x2xf32>, tensor<4x5xf32>, tensor<16xcomplex<f32>>, tensor<16xf32>, tensor<4x5xf32>, !mhlo.token) {
    %0 = mhlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#mhlo<precision DEFAULT>, #mhlo<precision DEFAULT>]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
    %1 = mhlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = mhlo.reduce(%arg2 init: %1) applies mhlo.add across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
    %3 = "mhlo.dot_general"(%arg2, %arg2) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#mhlo<precision DEFAULT>, #mhlo<precision HIGHEST>]} : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x4xf32>
    %4 = "mhlo.compare"(%arg3, %arg3) {comparison_direction = #mhlo<comparison_direction EQ>, compare_type = #mhlo<comparison_type SIGNED>} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %5 = "mhlo.slice"(%arg2) {start_indices = dense<[1, 0]> : tensor<2xi64>, limit_indices = dense<[4, 5]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<4x5xf32>) -> tensor<3x5xf32>
    %6 = mhlo.constant dense<0> : tensor<i32>
    %7 = mhlo.while(%iterArg = %6) : tensor<i32>
     cond {
      %c = mhlo.constant dense<3> : tensor<i32>
      %lt = mhlo.compare  LT, %iterArg, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      mhlo.return %lt : tensor<i1>
    } do {
      %one = mhlo.constant dense<1> : tensor<i32>
      %next = mhlo.add %iterArg, %one : tensor<i32>
      "mhlo.return"(%next) : (tensor<i32>) -> ()
    }
    %8 = "mhlo.gather"(%arg2, %arg3) {dimension_numbers = #mhlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = dense<[1, 2]> : tensor<2xi64>} : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<4x2xf32>
    %9 = "mhlo.scatter"(%arg2, %arg3, %arg2) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = mhlo.add %a, %b : tensor<f32>
      mhlo.return %s : tensor<f32>
    }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x5xf32>, tensor<4xi32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    %10 = mhlo.complex %arg5, %arg5 : tensor<16xcomplex<f32>>
    %11 = "mhlo.fft"(%10) {fft_type = #mhlo<fft_type FFT>, fft_length = dense<16> : tensor<1xi64>} : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
    %shape = mhlo.constant dense<16> : tensor<1xi64>
    %12 = "mhlo.rng"(%1, %1, %shape) {rng_distribution = #mhlo.rng_distribution<UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<16xf32>
    %13 = "mhlo.copy"(%arg2) {cross_program_prefetch_index = 0 : i32} : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %14 = "mhlo.after_all"(%arg4, %arg4) : (!mhlo.token, !mhlo.token) -> !mhlo.token
    return %0, %2, %3, %4, %5, %7, %8, %9, %11, %12, %13, %14 : tensor<1x6x6x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xi1>, tensor<3x5xf32>, tensor<i32>, tensor<4x2xf32>, tensor<4x5xf32>, tensor<16xcomplex<f32>>, tensor<16xf32>, tensor<4x5xf32>, !mhlo.token
  }
}
)";

// The same program as StableHLO writes it.
const char* kStablehlo = R"(module @m {
  func.func @main(%arg0: tensor<1x8x8x3xf32>, %arg1: tensor<3x3x3x4xf32>, %arg2: tensor<4x5xf32>, %arg3: tensor<4xi32>, %arg4: !stablehlo.token, %arg5: tensor<16xf32>) -> (tensor<1x6x6x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xi1>, tensor<3x5xf32>, tensor<i32>, tensor<4x2xf32>, tensor<4x5xf32>, tensor<16xcomplex<f32>>, tensor<16xf32>, tensor<4x5xf32>, !stablehlo.token) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
    %1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%arg2 init: %1) applies stablehlo.add across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.dot_general %arg2, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, HIGHEST] : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x4xf32>
    %4 = stablehlo.compare EQ, %arg3, %arg3, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %5 = stablehlo.slice %arg2 [1:4, 0:5] : (tensor<4x5xf32>) -> tensor<3x5xf32>
    %6 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.while(%iterArg = %6) : tensor<i32>
     cond {
      %c = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %iterArg, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %next = stablehlo.add %iterArg, %one : tensor<i32>
      stablehlo.return %next : tensor<i32>
    }
    %8 = "stablehlo.gather"(%arg2, %arg3) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2>}> : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<4x2xf32>
    %9 = "stablehlo.scatter"(%arg2, %arg3, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x5xf32>, tensor<4xi32>, tensor<4x5xf32>) -> tensor<4x5xf32>
    %10 = stablehlo.complex %arg5, %arg5 : tensor<16xcomplex<f32>>
    %11 = stablehlo.fft %10, type = FFT, length = [16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
    %shape = stablehlo.constant dense<16> : tensor<1xi64>
    %12 = stablehlo.rng %1, %1, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<16xf32>
    %13 = stablehlo.reshape %arg2 : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %14 = stablehlo.after_all %arg4, %arg4 : !stablehlo.token
    return %0, %2, %3, %4, %5, %7, %8, %9, %11, %12, %13, %14 : tensor<1x6x6x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xi1>, tensor<3x5xf32>, tensor<i32>, tensor<4x2xf32>, tensor<4x5xf32>, tensor<16xcomplex<f32>>, tensor<16xf32>, tensor<4x5xf32>, !stablehlo.token
  }
}
)";

TEST(MhloTest, ReadsAsTheSameStablehloModule) {
  auto mhlo = parseModule(std::string(kMhlo));
  auto stablehlo = parseModule(std::string(kStablehlo));
  const std::string printed = printModule(*mhlo);
  EXPECT_EQ(printed, printModule(*stablehlo));
  EXPECT_EQ(fingerprint(*mhlo), fingerprint(*stablehlo));
  EXPECT_EQ(printed.find("mhlo"), std::string::npos) << printed;
}

// Enums with their kind in the name, and records, in every spelling MHLO has.
TEST(MhloTest, Attributes) {
  auto attrOf = [](const std::string& op, const std::string& name) {
    ParseOptions unverified;  // the ops only carry the attributes here
    unverified.verify = false;
    auto m = parseModule("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n" + op +
                             "\n  return %x : tensor<2xf32>\n}",
                         unverified);
    return printAttribute(m->functions()[0]->body().front()->attr(name));
  };
  EXPECT_EQ(
      attrOf(
          R"(%s:2 = "mhlo.rng_bit_generator"(%x) {rng_algorithm = #mhlo.rng_algorithm<PHILOX>} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>))",
          "rng_algorithm"),
      "#stablehlo<rng_algorithm PHILOX>");
  EXPECT_EQ(
      attrOf(
          R"(%s = "mhlo.triangular_solve"(%x, %x) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #mhlo<transpose ADJOINT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>)",
          "transpose_a"),
      "#stablehlo<transpose ADJOINT>");
  // MHLO-only attributes on ops kiln keeps are kept as written.
  EXPECT_EQ(
      attrOf(R"(%s = mhlo.abs %x {mhlo.sharding = #mhlo.sharding<"{replicated}">} : tensor<2xf32>)",
             "mhlo.sharding"),
      "#mhlo.sharding<\"{replicated}\">");
}

TEST(MhloTest, MhloOnlyOpsAreUnsupportedAtTheOp) {
  auto body = [](const std::string& op) {
    return "func.func @main(%x: tensor<2xf32>, %t: !mhlo.token) -> tensor<2xf32> {\n  " + op +
           "\n  return %x : tensor<2xf32>\n}\n";
  };
  EXPECT_NE(
      test_util::parseErrorOf(
          body(
              R"(%y = "mhlo.add_dependency"(%x, %t) : (tensor<2xf32>, !mhlo.token) -> tensor<2xf32>)"), "m.mlir")
          .find(
              "m.mlir:2:8: error: unsupported: mhlo.add_dependency (orders a value after a token)"),
      std::string::npos)
      << test_util::parseErrorOf(body(
             R"(%y = "mhlo.add_dependency"(%x, %t) : (tensor<2xf32>, !mhlo.token) -> tensor<2xf32>)"), "m.mlir");
  EXPECT_NE(
      test_util::parseErrorOf(
          body(
              R"(%y = "mhlo.domain"(%x) {kind = #mhlo<kind sharding>, entry_metadata = "", exit_metadata = ""} : (tensor<2xf32>) -> tensor<2xf32>)"), "m.mlir")
          .find("m.mlir:2:8: error: unsupported: mhlo.domain"),
      std::string::npos);
  EXPECT_NE(
      test_util::parseErrorOf(
          body(
              R"(%y = "mhlo.async_start"(%x) {called_computation = @main, execution_thread = "main"} : (tensor<2xf32>) -> tensor<2xf32>)"), "m.mlir")
          .find("unsupported: mhlo.async_start"),
      std::string::npos);
  EXPECT_NE(test_util::parseErrorOf(body(R"(%y = mhlo.bitcast %x : (tensor<2xf32>) -> tensor<2xf32>)"), "m.mlir")
                .find("m.mlir:2:8: error: unsupported: mhlo.bitcast"),
            std::string::npos);
  // A name MHLO never had.
  EXPECT_NE(test_util::parseErrorOf(body(R"(%y = "mhlo.frobnicate"(%x) : (tensor<2xf32>) -> tensor<2xf32>)"), "m.mlir")
                .find("unsupported: mhlo.frobnicate (an MHLO op with no StableHLO counterpart)"),
            std::string::npos);
  EXPECT_NE(
      test_util::parseErrorOf(
          body(
              R"(%v, %i = "mhlo.topk"(%x) {k = 1 : i64, largest = false} : (tensor<2xf32>) -> (tensor<1xf32>, tensor<1xi32>))"), "m.mlir")
          .find("unsupported: mhlo.topk with largest = false"),
      std::string::npos);
}

// MHLO's math ops that StableHLO keeps in CHLO, and mhlo.topk.
TEST(MhloTest, MathOpsReadAsChlo) {
  auto m = parseModule(
      std::string(R"(func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x3xf32>) {
  %e = mhlo.erf %x : tensor<2x5xf32>
  %c = "mhlo.cosh"(%e) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %v, %i = "mhlo.topk"(%c) {k = 3 : i64, largest = true} : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %c, %v : tensor<2x5xf32>, tensor<2x3xf32>
})"));
  const std::string printed = printModule(*m);
  EXPECT_NE(printed.find("chlo.erf %arg0"), std::string::npos) << printed;
  EXPECT_NE(printed.find("chlo.cosh %0"), std::string::npos) << printed;
  EXPECT_NE(printed.find("chlo.top_k(%1, k = 3)"), std::string::npos) << printed;
}

// StableHLO's deprecated create_token (JAX's lax.create_token; MHLO's too) is after_all of
// no tokens.
TEST(MhloTest, CreateTokenReadsAsAfterAll) {
  for (const char* name : {"stablehlo.create_token", "mhlo.create_token"}) {
    auto m = parseModule(std::string(R"(func.func @main() -> !stablehlo.token {
  %t = ")") + name + R"("() : () -> !stablehlo.token
  return %t : !stablehlo.token
})");
    const std::string printed = printModule(*m);
    EXPECT_NE(printed.find("stablehlo.after_all"), std::string::npos) << printed;
  }
}

}  // namespace
}  // namespace kiln::stablehlo
