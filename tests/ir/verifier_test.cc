// The verifier's per-op rules (the C1, C2, ... constraints of the StableHLO spec): each
// rule accepts valid programs, including the tricky ones exporters produce, and rejects
// each kind of violation with a Verify error that says what is wrong.
#include "ir/verify/rules.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "stablehlo/parser.h"
#include "support/error.h"

namespace kiln {
namespace {

struct Case {
  std::string name;
  std::string text;   // a module
  const char* error;  // a substring of the expected message; null when the module is valid
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

// A module of one function taking `params` and running `body`.
std::string fn(const std::string& params, const std::string& body) {
  return "func.func @f(" + params + ") {\n" + body + "\n  return\n}\n";
}

// Shorthands for the many cases that are one op in a function.
Case ok(std::string name, const std::string& params, const std::string& body) {
  return {std::move(name), fn(params, body), nullptr};
}
Case bad(std::string name, const std::string& params, const std::string& body, const char* error) {
  return {std::move(name), fn(params, body), error};
}

// A reducer region over tensor<T>: (T, T) -> T with `op`; reducer() is the region list
// of an op with only that region.
std::string reducerRegion(const std::string& t, const std::string& op = "add") {
  return "{\n  ^bb0(%x: tensor<" + t + ">, %y: tensor<" + t + ">):\n    %s = \"stablehlo." + op +
         "\"(%x, %y) : (tensor<" + t + ">, tensor<" + t + ">) -> tensor<" + t +
         ">\n    \"stablehlo.return\"(%s) : (tensor<" + t + ">) -> ()\n  }";
}
std::string reducer(const std::string& t, const std::string& op = "add") {
  return "(" + reducerRegion(t, op) + ")";
}

std::vector<Case> elementwiseCases() {
  const std::string f2 = "%a: tensor<2xf32>, %b: tensor<2xf32>";
  return {
      ok("add", f2,
         "%0 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"),
      bad("add_operand_types", "%a: tensor<2xf32>, %b: tensor<3xf32>",
          "%0 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>",
          "operand 1 has type tensor<3xf32>, but operand 0 has tensor<2xf32>"),
      bad("add_result_type", f2,
          "%0 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf64>",
          "result type tensor<2xf64> does not match the expected tensor<2xf32>"),
      ok("and_bool", "%a: tensor<2xi1>",
         "%0 = \"stablehlo.and\"(%a, %a) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>"),
      bad("and_float", f2,
          "%0 = \"stablehlo.and\"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
          "operand 0 has element type f32, expected boolean or integer"),
      bad("not_float", f2, "%0 = \"stablehlo.not\"(%a) : (tensor<2xf32>) -> tensor<2xf32>",
          "expected boolean or integer"),
      bad("shift_left_bool", "%a: tensor<2xi1>",
          "%0 = \"stablehlo.shift_left\"(%a, %a) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>",
          "element type i1, expected integer"),
      bad("popcnt_float", f2, "%0 = \"stablehlo.popcnt\"(%a) : (tensor<2xf32>) -> tensor<2xf32>",
          "expected integer"),
      bad("count_leading_zeros_float", f2,
          "%0 = \"stablehlo.count_leading_zeros\"(%a) : (tensor<2xf32>) -> tensor<2xf32>",
          "expected integer"),
      ok("exponential_complex", "%a: tensor<2xcomplex<f32>>",
         "%0 = \"stablehlo.exponential\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>"),
      bad("exponential_int", "%a: tensor<2xi32>",
          "%0 = \"stablehlo.exponential\"(%a) : (tensor<2xi32>) -> tensor<2xi32>",
          "element type i32, expected floating-point or complex"),
      bad("log_result_type", f2, "%0 = \"stablehlo.log\"(%a) : (tensor<2xf32>) -> tensor<2xf16>",
          "result type tensor<2xf16> does not match"),
      bad("atan2_int", "%a: tensor<2xi32>",
          "%0 = \"stablehlo.atan2\"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>",
          "expected floating-point or complex"),
      bad("ceil_complex", "%a: tensor<2xcomplex<f32>>",
          "%0 = \"stablehlo.ceil\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>",
          "expected floating-point"),
      bad("round_nearest_even_int", "%a: tensor<2xi32>",
          "%0 = \"stablehlo.round_nearest_even\"(%a) : (tensor<2xi32>) -> tensor<2xi32>",
          "expected floating-point"),
      ok("remainder_unsigned", "%a: tensor<2xui8>",
         "%0 = \"stablehlo.remainder\"(%a, %a) : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>"),
      bad("subtract_bool", "%a: tensor<2xi1>",
          "%0 = \"stablehlo.subtract\"(%a, %a) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>",
          "expected integer, floating-point or complex"),
      bad("power_bool", "%a: tensor<2xi1>",
          "%0 = \"stablehlo.power\"(%a, %a) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>",
          "expected integer, floating-point or complex"),
      ok("abs_complex", "%a: tensor<2xcomplex<f64>>",
         "%0 = \"stablehlo.abs\"(%a) : (tensor<2xcomplex<f64>>) -> tensor<2xf64>"),
      bad("abs_complex_result", "%a: tensor<2xcomplex<f32>>",
          "%0 = \"stablehlo.abs\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>",
          "result type tensor<2xcomplex<f32>> does not match the expected tensor<2xf32>"),
      bad("abs_unsigned", "%a: tensor<2xui32>",
          "%0 = \"stablehlo.abs\"(%a) : (tensor<2xui32>) -> tensor<2xui32>",
          "expected signed integer, floating-point or complex"),
      bad("sign_unsigned", "%a: tensor<2xui32>",
          "%0 = \"stablehlo.sign\"(%a) : (tensor<2xui32>) -> tensor<2xui32>",
          "expected signed integer, floating-point or complex"),
      ok("real_of_float", f2, "%0 = \"stablehlo.real\"(%a) : (tensor<2xf32>) -> tensor<2xf32>"),
      bad("imag_part_type", "%a: tensor<2xcomplex<f32>>",
          "%0 = \"stablehlo.imag\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf64>",
          "result type tensor<2xf64> does not match the expected tensor<2xf32>"),
      bad("real_shape", "%a: tensor<2xcomplex<f32>>",
          "%0 = \"stablehlo.real\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<3xf32>",
          "result shape [3] does not match the expected [2]"),
      ok("complex", f2,
         "%0 = \"stablehlo.complex\"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> "
         "tensor<2xcomplex<f32>>"),
      bad("complex_operands", "%a: tensor<2xf32>, %b: tensor<2xf64>",
          "%0 = \"stablehlo.complex\"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> "
          "tensor<2xcomplex<f32>>",
          "operand types tensor<2xf32> and tensor<2xf64> differ"),
      bad("complex_result", f2,
          "%0 = \"stablehlo.complex\"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> "
          "tensor<2xcomplex<f64>>",
          "result type tensor<2xcomplex<f64>> does not match the expected tensor<2xcomplex<f32>>"),
      bad("complex_of_f16", "%a: tensor<2xf16>",
          "%0 = \"stablehlo.complex\"(%a, %a) : (tensor<2xf16>, tensor<2xf16>) -> "
          "tensor<2xcomplex<f32>>",
          "operands must be f32 or f64 tensors"),
      ok("convert_any_types", "%a: tensor<2xcomplex<f32>>",
         "%0 = \"stablehlo.convert\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xi1>"),
      bad("convert_shape", f2, "%0 = \"stablehlo.convert\"(%a) : (tensor<2xf32>) -> tensor<3xi32>",
          "result shape [3] does not match the expected [2]"),
      ok("bitcast_same_width", f2,
         "%0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xf32>) -> tensor<2xui32>"),
      ok("bitcast_narrower", f2,
         "%0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xf32>) -> tensor<2x4xi8>"),
      ok("bitcast_wider", "%a: tensor<2x4xi8>",
         "%0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<2x4xi8>) -> tensor<2xf32>"),
      bad("bitcast_narrower_shape", f2,
          "%0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xf32>) -> tensor<2x2xi8>",
          "result shape [2, 2] does not match the expected [2, 4]"),
      bad("bitcast_wider_minor_dim", "%a: tensor<2x2xi8>",
          "%0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<2x2xi8>) -> tensor<2xf32>",
          "needs a minor dimension of 4 to bitcast to f32"),
      bad("bitcast_complex", "%a: tensor<2xcomplex<f32>>",
          "%0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf64>",
          "cannot bitcast between complex and non-complex"),
      ok("is_finite", f2, "%0 = \"stablehlo.is_finite\"(%a) : (tensor<2xf32>) -> tensor<2xi1>"),
      bad("is_finite_int", "%a: tensor<2xi32>",
          "%0 = \"stablehlo.is_finite\"(%a) : (tensor<2xi32>) -> tensor<2xi1>",
          "expected floating-point"),
      bad("is_finite_result", f2,
          "%0 = \"stablehlo.is_finite\"(%a) : (tensor<2xf32>) -> tensor<2xf32>",
          "result type tensor<2xf32> does not match the expected tensor<2xi1>"),
      ok("compare_float", f2,
         "%0 = \"stablehlo.compare\"(%a, %b) {comparison_direction = "
         "#stablehlo<comparison_direction LT>, "
         "compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<2xf32>, tensor<2xf32>) "
         "-> tensor<2xi1>"),
      ok("compare_bool_unsigned", "%a: tensor<2xi1>",
         "%0 = \"stablehlo.compare\"(%a, %a) {comparison_direction = "
         "#stablehlo<comparison_direction NE>, "
         "compare_type = #stablehlo<comparison_type UNSIGNED>} : (tensor<2xi1>, tensor<2xi1>) -> "
         "tensor<2xi1>"),
      bad("compare_type", f2,
          "%0 = \"stablehlo.compare\"(%a, %b) {comparison_direction = "
          "#stablehlo<comparison_direction LT>, "
          "compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<2xf32>, tensor<2xf32>) -> "
          "tensor<2xi1>",
          "compare_type SIGNED does not fit element type f32 (expected FLOAT or TOTALORDER)"),
      bad("compare_unsigned_as_signed", "%a: tensor<2xui8>",
          "%0 = \"stablehlo.compare\"(%a, %a) {comparison_direction = "
          "#stablehlo<comparison_direction LT>, "
          "compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<2xui8>, tensor<2xui8>) -> "
          "tensor<2xi1>",
          "(expected UNSIGNED)"),
      bad("compare_result", f2,
          "%0 = \"stablehlo.compare\"(%a, %b) {comparison_direction = "
          "#stablehlo<comparison_direction LT>} : "
          "(tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32>",
          "result type tensor<2xi32> does not match the expected tensor<2xi1>"),
      ok("select_scalar_pred", f2 + ", %p: tensor<i1>",
         "%0 = \"stablehlo.select\"(%p, %a, %b) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> "
         "tensor<2xf32>"),
      bad("select_pred_shape", f2 + ", %p: tensor<3xi1>",
          "%0 = \"stablehlo.select\"(%p, %a, %b) : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> "
          "tensor<2xf32>",
          "pred shape [3] must be scalar or match on_true [2]"),
      bad("select_pred_type", f2 + ", %p: tensor<2xi32>",
          "%0 = \"stablehlo.select\"(%p, %a, %b) : (tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) "
          "-> tensor<2xf32>",
          "pred must have element type i1"),
      ok("clamp_scalar_bounds", "%a: tensor<2xf32>, %lo: tensor<f32>",
         "%0 = \"stablehlo.clamp\"(%lo, %a, %lo) : (tensor<f32>, tensor<2xf32>, tensor<f32>) -> "
         "tensor<2xf32>"),
      bad("clamp_min_shape", "%a: tensor<2xf32>, %lo: tensor<3xf32>",
          "%0 = \"stablehlo.clamp\"(%lo, %a, %a) : (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) "
          "-> tensor<2xf32>",
          "min shape [3] must be scalar or match the operand [2]"),
      bad("clamp_max_type", "%a: tensor<2xf32>, %hi: tensor<f64>",
          "%0 = \"stablehlo.clamp\"(%a, %a, %hi) : (tensor<2xf32>, tensor<2xf32>, tensor<f64>) -> "
          "tensor<2xf32>",
          "max element type f64 differs from the operand's f32"),
      ok("reduce_precision", f2,
         "%0 = \"stablehlo.reduce_precision\"(%a) {exponent_bits = 5 : i32, mantissa_bits = 0 : "
         "i32} : "
         "(tensor<2xf32>) -> tensor<2xf32>"),
      bad("reduce_precision_exponent", f2,
          "%0 = \"stablehlo.reduce_precision\"(%a) {exponent_bits = 0 : i32, mantissa_bits = 2 : "
          "i32} : "
          "(tensor<2xf32>) -> tensor<2xf32>",
          "exponent_bits must be at least 1, got 0"),
      bad("reduce_precision_mantissa", f2,
          "%0 = \"stablehlo.reduce_precision\"(%a) {exponent_bits = 5 : i32, mantissa_bits = -1 : "
          "i32} : "
          "(tensor<2xf32>) -> tensor<2xf32>",
          "mantissa_bits must be non-negative"),
      bad("chlo_erf_complex", "%a: tensor<2xcomplex<f32>>",
          "%0 = \"chlo.erf\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>",
          "expected floating-point"),
      bad("negate_bool", "%a: tensor<2xi1>",
          "%0 = \"stablehlo.negate\"(%a) : (tensor<2xi1>) -> tensor<2xi1>",
          "expected integer, floating-point or complex"),
      bad("chlo_next_after_int", "%a: tensor<2xi32>",
          "%0 = \"chlo.next_after\"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>",
          "expected floating-point"),
      bad("chlo_mulhi_float", f2,
          "%0 = \"chlo.mulhi\"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
          "expected integer"),
      ok("chlo_broadcast_add", "%a: tensor<4xf32>, %b: tensor<3x4xf32>",
         "%0 = \"chlo.broadcast_add\"(%a, %b) : (tensor<4xf32>, tensor<3x4xf32>) -> "
         "tensor<3x4xf32>"),
      ok("chlo_broadcast_add_degenerate", "%a: tensor<3x1xf32>, %b: tensor<1x4xf32>",
         "%0 = \"chlo.broadcast_add\"(%a, %b) : (tensor<3x1xf32>, tensor<1x4xf32>) -> "
         "tensor<3x4xf32>"),
      bad("chlo_broadcast_add_shape", "%a: tensor<3xf32>, %b: tensor<3x4xf32>",
          "%0 = \"chlo.broadcast_add\"(%a, %b) : (tensor<3xf32>, tensor<3x4xf32>) -> "
          "tensor<3x4xf32>",
          "operand shapes [3] and [3, 4] do not broadcast"),
  };
}

std::vector<Case> shapeCases() {
  return {
      ok("broadcast_in_dim", "%a: tensor<1x3xf32>",
         "%0 = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 0, 2>} : "
         "(tensor<1x3xf32>) -> tensor<2x4x3xf32>"),
      bad("broadcast_in_dim_size", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 0, 1>} : "
          "(tensor<2x3xf32>) -> tensor<2x4xf32>",
          "operand dimension 1 of size 3 cannot broadcast to result dimension 1 of size 4 (operand "
          "[2, 3], "
          "result [2, 4], dims [0, 1])"),
      bad("broadcast_in_dim_count", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 0>} : "
          "(tensor<2x3xf32>) -> tensor<2x3xf32>",
          "broadcast_dimensions [0] must have one entry per operand dimension (rank 2)"),
      bad("broadcast_in_dim_range", "%a: tensor<2xf32>",
          "%0 = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 2>} : "
          "(tensor<2xf32>) -> tensor<2x2xf32>",
          "broadcast_dimensions [2] holds 2, outside [0, 2) for the result of rank 2"),
      bad("broadcast_in_dim_repeat", "%a: tensor<2x2xf32>",
          "%0 = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 1, 1>} : "
          "(tensor<2x2xf32>) -> tensor<2x2xf32>",
          "broadcast_dimensions [1, 1] repeats a dimension"),
      bad("broadcast_in_dim_element", "%a: tensor<2xf32>",
          "%0 = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 0>} : "
          "(tensor<2xf32>) -> tensor<2xf64>",
          "result type tensor<2xf64> does not match the expected tensor<2xf32>"),
      ok("broadcast", "%a: tensor<3xi32>",
         "%0 = \"stablehlo.broadcast\"(%a) {broadcast_sizes = array<i64: 2>} : (tensor<3xi32>) -> "
         "tensor<2x3xi32>"),
      bad("broadcast_shape", "%a: tensor<3xi32>",
          "%0 = \"stablehlo.broadcast\"(%a) {broadcast_sizes = array<i64: 2>} : (tensor<3xi32>) -> "
          "tensor<3x2xi32>",
          "result shape [3, 2] does not match the expected [2, 3]"),
      ok("reshape", "%a: tensor<2x3xf32>",
         "%0 = \"stablehlo.reshape\"(%a) : (tensor<2x3xf32>) -> tensor<3x1x2xf32>"),
      bad("reshape_count", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.reshape\"(%a) : (tensor<2x3xf32>) -> tensor<5xf32>",
          "cannot reshape tensor<2x3xf32> (6 elements) to tensor<5xf32> (5 elements)"),
      ok("transpose", "%a: tensor<2x3x4xf32>",
         "%0 = \"stablehlo.transpose\"(%a) {permutation = array<i64: 2, 0, 1>} : "
         "(tensor<2x3x4xf32>) -> tensor<4x2x3xf32>"),
      bad("transpose_permutation", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.transpose\"(%a) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) "
          "-> tensor<2x3xf32>",
          "permutation [0, 0] is not a permutation of [0, 2)"),
      bad("transpose_shape", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.transpose\"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) "
          "-> tensor<2x3xf32>",
          "result shape [2, 3] does not match the expected [3, 2] (operand [2, 3] permuted by [1, "
          "0])"),
      ok("reverse", "%a: tensor<2x3xf32>",
         "%0 = \"stablehlo.reverse\"(%a) {dimensions = array<i64: 1, 0>} : (tensor<2x3xf32>) -> "
         "tensor<2x3xf32>"),
      bad("reverse_range", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.reverse\"(%a) {dimensions = array<i64: 2>} : (tensor<2x3xf32>) -> "
          "tensor<2x3xf32>",
          "dimensions [2] holds 2, outside [0, 2)"),
      ok("slice_strided", "%a: tensor<7xf32>",
         "%0 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 1>, limit_indices = array<i64: "
         "7>, "
         "strides = array<i64: 4>} : (tensor<7xf32>) -> tensor<2xf32>"),
      bad("slice_shape", "%a: tensor<7xf32>",
          "%0 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 1>, limit_indices = array<i64: "
          "7>, "
          "strides = array<i64: 2>} : (tensor<7xf32>) -> tensor<2xf32>",
          "result shape [2] does not match the expected [3]"),
      bad("slice_bounds", "%a: tensor<4xf32>",
          "%0 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 1>, limit_indices = array<i64: "
          "5>, "
          "strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32>",
          "dimension 0 slices [1, 5), which is not within [0, 4]"),
      bad("slice_stride", "%a: tensor<4xf32>",
          "%0 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: "
          "4>, "
          "strides = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>",
          "strides [0] must be positive"),
      ok("dynamic_slice", "%a: tensor<4x5xf32>, %i: tensor<i64>",
         "%0 = \"stablehlo.dynamic_slice\"(%a, %i, %i) {slice_sizes = array<i64: 2, 5>} : "
         "(tensor<4x5xf32>, tensor<i64>, tensor<i64>) -> tensor<2x5xf32>"),
      bad("dynamic_slice_index_count", "%a: tensor<4x5xf32>, %i: tensor<i64>",
          "%0 = \"stablehlo.dynamic_slice\"(%a, %i) {slice_sizes = array<i64: 2, 5>} : "
          "(tensor<4x5xf32>, tensor<i64>) -> tensor<2x5xf32>",
          "takes 1 start indices for an operand of rank 2"),
      bad("dynamic_slice_index_types", "%a: tensor<4x5xf32>, %i: tensor<i64>, %j: tensor<i32>",
          "%0 = \"stablehlo.dynamic_slice\"(%a, %i, %j) {slice_sizes = array<i64: 2, 5>} : "
          "(tensor<4x5xf32>, tensor<i64>, tensor<i32>) -> tensor<2x5xf32>",
          "start indices have different types: tensor<i64> and tensor<i32>"),
      bad("dynamic_slice_sizes", "%a: tensor<4x5xf32>, %i: tensor<i64>",
          "%0 = \"stablehlo.dynamic_slice\"(%a, %i, %i) {slice_sizes = array<i64: 2, 6>} : "
          "(tensor<4x5xf32>, tensor<i64>, tensor<i64>) -> tensor<2x6xf32>",
          "slice_sizes [2, 6] exceed the operand shape [4, 5]"),
      bad("dynamic_slice_result", "%a: tensor<4x5xf32>, %i: tensor<i64>",
          "%0 = \"stablehlo.dynamic_slice\"(%a, %i, %i) {slice_sizes = array<i64: 2, 5>} : "
          "(tensor<4x5xf32>, tensor<i64>, tensor<i64>) -> tensor<2x4xf32>",
          "result shape [2, 4] does not match the expected [2, 5] (slice_sizes)"),
      ok("dynamic_update_slice", "%a: tensor<4x5xf32>, %u: tensor<2x5xf32>, %i: tensor<i32>",
         "%0 = \"stablehlo.dynamic_update_slice\"(%a, %u, %i, %i) : "
         "(tensor<4x5xf32>, tensor<2x5xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>"),
      bad("dynamic_update_slice_too_big",
          "%a: tensor<4x5xf32>, %u: tensor<2x6xf32>, %i: tensor<i32>",
          "%0 = \"stablehlo.dynamic_update_slice\"(%a, %u, %i, %i) : "
          "(tensor<4x5xf32>, tensor<2x6xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>",
          "update shape [2, 6] does not fit in the operand shape [4, 5]"),
      bad("dynamic_update_slice_index_rank",
          "%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<1xi32>",
          "%0 = \"stablehlo.dynamic_update_slice\"(%a, %u, %i) : "
          "(tensor<4xf32>, tensor<2xf32>, tensor<1xi32>) -> tensor<4xf32>",
          "start index 0 must be a 0-d integer tensor, got tensor<1xi32>"),
      ok("concatenate", "%a: tensor<2x3xf32>, %b: tensor<4x3xf32>",
         "%0 = \"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : "
         "(tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>"),
      bad("concatenate_shapes", "%a: tensor<2x3xf32>, %b: tensor<2x4xf32>",
          "%0 = \"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : "
          "(tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>",
          "input 1 shape [2, 4] must match input 0 shape [2, 3] except in dimension 0"),
      bad("concatenate_result", "%a: tensor<2x3xf32>, %b: tensor<4x3xf32>",
          "%0 = \"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : "
          "(tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<5x3xf32>",
          "result shape [5, 3] does not match the expected [6, 3]"),
      bad("concatenate_dimension", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.concatenate\"(%a) {dimension = 2 : i64} : (tensor<2x3xf32>) -> "
          "tensor<2x3xf32>",
          "dimension 2 is outside [0, 2)"),
      ok("pad_negative_and_interior", "%a: tensor<3xf32>, %p: tensor<f32>",
         "%0 = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: -1>, edge_padding_high = "
         "array<i64: 2>, "
         "interior_padding = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>"),
      bad("pad_shape", "%a: tensor<3xf32>, %p: tensor<f32>",
          "%0 = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: 1>, edge_padding_high = "
          "array<i64: 2>, "
          "interior_padding = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>",
          "result shape [6] does not match the expected [8] (operand [3] padded with low [1], high "
          "[2], interior [1])"),
      bad("pad_past_nothing", "%a: tensor<2xf32>, %p: tensor<f32>",
          "%0 = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: -2>, edge_padding_high = "
          "array<i64: -1>, interior_padding = array<i64: 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<0xf32>",
          "the padding makes dimension 0 of size -1"),
      bad("pad_interior", "%a: tensor<3xf32>, %p: tensor<f32>",
          "%0 = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: 0>, edge_padding_high = "
          "array<i64: 0>, "
          "interior_padding = array<i64: -1>} : (tensor<3xf32>, tensor<f32>) -> tensor<1xf32>",
          "interior_padding [-1] must be non-negative"),
      bad("pad_value_rank", "%a: tensor<3xf32>, %p: tensor<1xf32>",
          "%0 = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: 0>, edge_padding_high = "
          "array<i64: 0>, "
          "interior_padding = array<i64: 0>} : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>",
          "padding_value must be a 0-d tensor"),
      ok("iota", "",
         "%0 = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> tensor<2x3xcomplex<f32>>"),
      bad("iota_dimension", "",
          "%0 = \"stablehlo.iota\"() {iota_dimension = 2 : i64} : () -> tensor<2x3xf32>",
          "iota_dimension 2 is outside [0, 2)"),
      bad("iota_bool", "",
          "%0 = \"stablehlo.iota\"() {iota_dimension = 0 : i64} : () -> tensor<2xi1>",
          "integer, floating-point or complex"),
      ok("tuple_and_get_tuple_element", "%a: tensor<2xf32>, %t: !stablehlo.token",
         "%0 = \"stablehlo.tuple\"(%a, %t) : (tensor<2xf32>, !stablehlo.token) -> "
         "tuple<tensor<2xf32>, !stablehlo.token>\n"
         "%1 = \"stablehlo.get_tuple_element\"(%0) {index = 1 : i32} : "
         "(tuple<tensor<2xf32>, !stablehlo.token>) -> !stablehlo.token"),
      bad("get_tuple_element_index", "%t: tuple<tensor<2xf32>>",
          "%0 = \"stablehlo.get_tuple_element\"(%t) {index = 1 : i32} : (tuple<tensor<2xf32>>) -> "
          "tensor<2xf32>",
          "index 1 is outside [0, 1)"),
      bad("get_tuple_element_type", "%t: tuple<tensor<2xf32>>",
          "%0 = \"stablehlo.get_tuple_element\"(%t) {index = 0 : i32} : (tuple<tensor<2xf32>>) -> "
          "tensor<2xf64>",
          "result type tensor<2xf64> does not match the expected tensor<2xf32>"),
      bad("tuple_type", "%a: tensor<2xf32>",
          "%0 = \"stablehlo.tuple\"(%a) : (tensor<2xf32>) -> tuple<tensor<2xf64>>",
          "result type tuple<tensor<2xf64>> does not match the expected tuple<tensor<2xf32>>"),
      ok("dynamic_broadcast_in_dim", "%a: tensor<3xf32>",
         "%s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n"
         "%0 = \"stablehlo.dynamic_broadcast_in_dim\"(%a, %s) {broadcast_dimensions = array<i64: "
         "1>} : "
         "(tensor<3xf32>, tensor<2xi64>) -> tensor<2x3xf32>"),
      bad("dynamic_broadcast_in_dim_constant", "%a: tensor<3xf32>",
          "%s = stablehlo.constant dense<[4, 3]> : tensor<2xi64>\n"
          "%0 = \"stablehlo.dynamic_broadcast_in_dim\"(%a, %s) {broadcast_dimensions = array<i64: "
          "1>} : "
          "(tensor<3xf32>, tensor<2xi64>) -> tensor<2x3xf32>",
          "output_dimensions is the constant [4, 3], expected [2, 3]"),
      bad("dynamic_iota_output_shape", "%s: tensor<3xi32>",
          "%0 = \"stablehlo.dynamic_iota\"(%s) {iota_dimension = 0 : i64} : (tensor<3xi32>) -> "
          "tensor<2x3xf32>",
          "output_shape tensor<3xi32> must have 2 entries"),
      bad("dynamic_reshape_count", "%a: tensor<6xf32>, %s: tensor<2xi32>",
          "%0 = \"stablehlo.dynamic_reshape\"(%a, %s) : (tensor<6xf32>, tensor<2xi32>) -> "
          "tensor<2x2xf32>",
          "cannot reshape tensor<6xf32> (6 elements) to tensor<2x2xf32>"),
      bad("dynamic_pad_constant", "%a: tensor<3xf32>, %p: tensor<f32>",
          "%lo = stablehlo.constant dense<1> : tensor<1xi64>\n"
          "%in = stablehlo.constant dense<0> : tensor<1xi64>\n"
          "%0 = \"stablehlo.dynamic_pad\"(%a, %p, %lo, %lo, %in) : "
          "(tensor<3xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> "
          "tensor<4xf32>",
          "does not match the expected [5]"),
      bad("constant_type", "",
          "%0 = \"stablehlo.constant\"() {value = dense<1.0> : tensor<2xf32>} : () -> "
          "tensor<3xf32>",
          "result shape [3] does not match the expected [2]"),
      ok("torch_index_select", "%a: tensor<5x1x5xi32>, %i: tensor<2xi32>",
         "%0 = \"stablehlo.torch_index_select\"(%a, %i) {dim = 0 : i64, batch_dims = 0 : i64} : "
         "(tensor<5x1x5xi32>, tensor<2xi32>) -> tensor<2x1x5xi32>"),
      bad("torch_index_select_shape", "%a: tensor<5x1x5xi32>, %i: tensor<i32>",
          "%0 = \"stablehlo.torch_index_select\"(%a, %i) {dim = 0 : i64, batch_dims = 0 : i64} : "
          "(tensor<5x1x5xi32>, tensor<i32>) -> tensor<5x1x5xi32>",
          "result type tensor<5x1x5xi32> does not match the expected tensor<1x5xi32>"),
  };
}

// gather: 3x4 operand, two rows picked by 2x1 indices.
std::string gather(const std::string& dims, const std::string& sizes, const std::string& types) {
  return "%0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<" + dims +
         ">, slice_sizes = array<i64: " + sizes + ">} : " + types;
}

// scatter of `updates` into a 3x4 input by 2x1 indices, adding.
std::string scatter(const std::string& dims, const std::string& types,
                    const std::string& body = reducer("f32")) {
  return "%0 = \"stablehlo.scatter\"(%a, %i, %u) " + body +
         " {scatter_dimension_numbers = #stablehlo.scatter<" + dims + ">} : " + types;
}

std::vector<Case> gatherScatterCases() {
  const std::string gp = "%a: tensor<3x4xf32>, %i: tensor<2x1xi32>";
  const std::string rows =
      "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1";
  const std::string sp = "%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>";
  const std::string srows =
      "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
      "index_vector_dim = 1";
  const std::string stypes =
      "(tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>";
  return {
      ok("gather", gp,
         gather(rows, "1, 4", "(tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>")),
      ok("gather_batching", "%a: tensor<2x3x4xf32>, %i: tensor<2x5x1xi32>",
         gather("offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], "
                "start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2",
                "1, 1, 4", "(tensor<2x3x4xf32>, tensor<2x5x1xi32>) -> tensor<2x5x4xf32>")),
      bad("gather_result", gp,
          gather(rows, "1, 4", "(tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>"),
          "result shape [2, 3] does not match the expected [2, 4] (index batch dimensions [2], "
          "slice dimensions [4] "
          "at offset_dims [1])"),
      bad("gather_index_map", gp,
          gather("offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], "
                 "index_vector_dim = 1",
                 "1, 4", "(tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>"),
          "start_index_map [0, 1] must have 1 entries"),
      bad("gather_collapsed_size", gp,
          gather(rows, "2, 4", "(tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>"),
          "slice_sizes[0] is 2, but dimension 0 is collapsed or batching"),
      bad("gather_slice_bounds", gp,
          gather(rows, "1, 5", "(tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x5xf32>"),
          "slice_sizes [1, 5] must lie within the operand shape [3, 4]"),
      bad("gather_rank", gp,
          gather("offset_dims = [1], collapsed_slice_dims = [], start_index_map = [0], "
                 "index_vector_dim = 1",
                 "1, 4", "(tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>"),
          "operand rank 2 must equal the sizes of offset_dims [1] + collapsed_slice_dims []"),
      bad("gather_index_vector_dim", gp,
          gather("offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
                 "index_vector_dim = 3",
                 "1, 4", "(tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>"),
          "index_vector_dim 3 is outside [0, 2]"),
      bad("gather_float_indices", "%a: tensor<3x4xf32>, %i: tensor<2x1xf32>",
          gather(rows, "1, 4", "(tensor<3x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>"),
          "indices must be an integer tensor"),
      bad("gather_batching_sizes", "%a: tensor<2x3x4xf32>, %i: tensor<3x5x1xi32>",
          gather("offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], "
                 "start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2",
                 "1, 1, 4", "(tensor<2x3x4xf32>, tensor<3x5x1xi32>) -> tensor<3x5x4xf32>"),
          "batching dimension 0 of the operand has size 2 but batching dimension 0 of the indices "
          "has size 3"),
      ok("dynamic_gather", gp,
         "%s = stablehlo.constant dense<[1, 4]> : tensor<2xi64>\n"
         "%0 = \"stablehlo.dynamic_gather\"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<" +
             rows + ">} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x4xf32>"),
      bad("dynamic_gather_constant", gp,
          "%s = stablehlo.constant dense<[1, 3]> : tensor<2xi64>\n"
          "%0 = \"stablehlo.dynamic_gather\"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<" +
              rows + ">} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x4xf32>",
          "does not match the expected [2, 3]"),
      ok("scatter", sp, scatter(srows, stypes)),
      ok("scatter_smaller_window", "%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x2xf32>",
         scatter(srows, "(tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x2xf32>) -> tensor<3x4xf32>")),
      bad("scatter_window_too_big", "%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x5xf32>",
          scatter(srows, "(tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x5xf32>) -> tensor<3x4xf32>"),
          "update window dimension 1 has size 5, larger than the input's 4"),
      bad("scatter_update_batch", "%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<3x4xf32>",
          scatter(srows, "(tensor<3x4xf32>, tensor<2x1xi32>, tensor<3x4xf32>) -> tensor<3x4xf32>"),
          "update scatter dimensions [3] do not match the indices' batch dimensions [2]"),
      bad("scatter_inserted_unsorted",
          "%a: tensor<3x4x5xf32>, %i: tensor<2x1xi32>, %u: tensor<2x5xf32>",
          scatter("update_window_dims = [1], inserted_window_dims = [1, 0], "
                  "scatter_dims_to_operand_dims = [0], "
                  "index_vector_dim = 1",
                  "(tensor<3x4x5xf32>, tensor<2x1xi32>, tensor<2x5xf32>) -> tensor<3x4x5xf32>"),
          "inserted_window_dims [1, 0] must be sorted"),
      ok("scatter_promoted_body", sp,
         scatter(srows, "(tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf64>",
                 reducer("f64"))),
      bad("scatter_body", sp, scatter(srows, stypes, reducer("f16")),
          "the body works on tensor<f16>, which input element type f32 cannot be promoted to"),
      bad("scatter_result", sp,
          scatter(srows, "(tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x5xf32>"),
          "result shape [3, 5] does not match the expected [3, 4]"),
      bad("scatter_update_type", "%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf16>",
          scatter(srows, "(tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf16>) -> tensor<3x4xf32>"),
          "update 0 element type f16 differs from input 0's f32"),
  };
}

std::vector<Case> regionCases() {
  const std::string rp = "%a: tensor<2x3xf32>, %z: tensor<f32>";
  auto reduce = [](const std::string& body, const std::string& dims, const std::string& types) {
    return "%0 = \"stablehlo.reduce\"(%a, %z) " + body + " {dimensions = array<i64: " + dims +
           ">} : " + types;
  };
  auto window = [](const std::string& attrs, const std::string& result) {
    return "%0 = \"stablehlo.reduce_window\"(%a, %z) " + reducer("f32", "maximum") + " {" + attrs +
           "} : (tensor<4x4xf32>, tensor<f32>) -> " + result;
  };
  const std::string wp = "%a: tensor<4x4xf32>, %z: tensor<f32>";
  const std::string lessThan =
      "{\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "    %c = \"stablehlo.compare\"(%x, %y) {comparison_direction = "
      "#stablehlo<comparison_direction LT>} : "
      "(tensor<f32>, tensor<f32>) -> tensor<i1>\n    \"stablehlo.return\"(%c) : (tensor<i1>) -> "
      "()\n  }";
  const std::string sortBody = "(" + lessThan + ")";
  auto selectAndScatter = [&](const std::string& select, const std::string& source,
                              const std::string& result) {
    return "%0 = \"stablehlo.select_and_scatter\"(%a, %s, %z) (" + select + ", " +
           reducerRegion("f32") +
           ") {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : "
           "(tensor<4x4xf32>, tensor<" +
           source + "xf32>, tensor<f32>) -> tensor<" + result + "xf32>";
  };
  const std::string wlp = "%n: tensor<i32>";
  auto loop = [](const std::string& condResult, const std::string& bodyResult) {
    return "%0 = \"stablehlo.while\"(%n) ({\n  ^bb0(%x: tensor<i32>):\n"
           "    %c = \"stablehlo.compare\"(%x, %x) {comparison_direction = "
           "#stablehlo<comparison_direction LT>} : "
           "(tensor<i32>, tensor<i32>) -> tensor<i1>\n    \"stablehlo.return\"(" +
           condResult + ") : (tensor<" + (condResult == "%c" ? "i1" : "i32") +
           ">) -> ()\n  }, {\n  ^bb0(%x: tensor<i32>):\n"
           "    %d = \"stablehlo.convert\"(%x) : (tensor<i32>) -> tensor<i64>\n"
           "    \"stablehlo.return\"(" +
           bodyResult + ") : (tensor<" + (bodyResult == "%x" ? "i32" : "i64") +
           ">) -> ()\n  }) : (tensor<i32>) -> tensor<i32>";
  };
  auto branch = [](const std::string& v, const std::string& t) {
    return "{\n    \"stablehlo.return\"(" + v + ") : (" + t + ") -> ()\n  }";
  };
  return {
      ok("reduce", rp,
         reduce(reducer("f32"), "1", "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>")),
      ok("reduce_promoted_body", "%a: tensor<2x3xbf16>, %z: tensor<bf16>",
         "%0 = \"stablehlo.reduce\"(%a, %z) " + reducer("f32") +
             " {dimensions = array<i64: 0, 1>} : (tensor<2x3xbf16>, tensor<bf16>) -> tensor<f32>"),
      bad("reduce_result", rp,
          reduce(reducer("f32"), "1", "(tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>"),
          "result shape [3] does not match the expected [2]"),
      bad("reduce_dimension", rp,
          reduce(reducer("f32"), "2", "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>"),
          "dimensions [2] holds 2, outside [0, 2) for the inputs of rank 2"),
      bad("reduce_body_narrower", rp,
          reduce(reducer("f16"), "1", "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf16>"),
          "the body works on tensor<f16>, which input element type f32 cannot be promoted to"),
      bad("reduce_init", "%a: tensor<2x3xf32>, %z: tensor<1xf32>",
          reduce(reducer("f32"), "1", "(tensor<2x3xf32>, tensor<1xf32>) -> tensor<2xf32>"),
          "init value 0 has type tensor<1xf32>, expected tensor<f32>"),
      bad("reduce_body_arity", rp,
          reduce("({\n  ^bb0(%x: tensor<f32>):\n    \"stablehlo.return\"(%x) : (tensor<f32>) -> "
                 "()\n  })",
                 "1", "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>"),
          "the body takes 1 arguments, expected 2 (two per input)"),
      ok("reduce_window", wp,
         window("window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>",
                "tensor<2x2xf32>")),
      ok("reduce_window_padded_dilated", wp,
         window("window_dimensions = array<i64: 2, 2>, base_dilations = array<i64: 2, 1>, "
                "window_dilations = array<i64: 1, 2>, padding = dense<[[1, 0], [0, 1]]> : "
                "tensor<2x2xi64>",
                "tensor<7x3xf32>")),
      bad("reduce_window_result", wp,
          window("window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>",
                 "tensor<3x3xf32>"),
          "result shape [3, 3] does not match the expected [2, 2] (the number of windows [2, 2] "
          "with strides [2, 2] over input [4, 4]"),
      bad("reduce_window_dims", wp, window("window_dimensions = array<i64: 2>", "tensor<3x3xf32>"),
          "window_dimensions [2] must have one entry per input dimension (2)"),
      bad("reduce_window_stride", wp,
          window("window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 0, 1>",
                 "tensor<3x3xf32>"),
          "window_strides [0, 1] must be positive"),
      bad("reduce_window_padding", wp,
          window("window_dimensions = array<i64: 2, 2>, padding = dense<0> : tensor<1x2xi64>",
                 "tensor<3x3xf32>"),
          "padding has shape [1, 2], expected [2, 2]"),
      ok("select_and_scatter", "%a: tensor<4x4xf32>, %s: tensor<2x2xf32>, %z: tensor<f32>",
         selectAndScatter(lessThan, "2x2", "4x4")),
      bad("select_and_scatter_source", "%a: tensor<4x4xf32>, %s: tensor<3x3xf32>, %z: tensor<f32>",
          selectAndScatter(lessThan, "3x3", "4x4"),
          "source shape [3, 3] does not match the number of windows [2, 2]"),
      bad("select_and_scatter_select", "%a: tensor<4x4xf32>, %s: tensor<2x2xf32>, %z: tensor<f32>",
          selectAndScatter(reducerRegion("f32"), "2x2", "4x4"),
          "select returns (tensor<f32>), but the expected results are (tensor<i1>)"),
      ok("sort", "%a: tensor<2x3xf32>",
         "%0 = \"stablehlo.sort\"(%a) " + sortBody +
             " {dimension = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>"),
      bad("sort_dimension", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.sort\"(%a) " + sortBody +
              " {dimension = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
          "dimension 2 is outside [-2, 2)"),
      bad("sort_comparator", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.sort\"(%a) " + reducer("f32") +
              " {dimension = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
          "comparator returns (tensor<f32>), but the expected results are (tensor<i1>)"),
      bad("sort_comparator_args", "%a: tensor<2x3xi32>",
          "%0 = \"stablehlo.sort\"(%a) " + sortBody +
              " {dimension = 0 : i64} : (tensor<2x3xi32>) -> tensor<2x3xi32>",
          "comparator takes (tensor<f32>, tensor<f32>), expected (tensor<i32>, tensor<i32>)"),
      ok("map", "%a: tensor<2xf32>",
         "%0 = \"stablehlo.map\"(%a, %a) " + reducer("f32") +
             " {dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"),
      bad("map_dimensions", "%a: tensor<2xf32>",
          "%0 = \"stablehlo.map\"(%a, %a) " + reducer("f32") +
              " {dimensions = array<i64: 1>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
          "dimensions [1] must be [0]"),
      ok("while", wlp, loop("%c", "%x")),
      bad("while_cond", wlp, loop("%x", "%x"),
          "cond returns (tensor<i32>), but the expected results are (tensor<i1>)"),
      bad("while_body", wlp, loop("%c", "%d"),
          "body returns (tensor<i64>), but the operand types are (tensor<i32>)"),
      ok("if", "%p: tensor<i1>, %a: tensor<2xf32>",
         "%0 = \"stablehlo.if\"(%p) (" + branch("%a", "tensor<2xf32>") + ", " +
             branch("%a", "tensor<2xf32>") + ") : (tensor<i1>) -> tensor<2xf32>"),
      bad("if_branch", "%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<3xf32>",
          "%0 = \"stablehlo.if\"(%p) (" + branch("%a", "tensor<2xf32>") + ", " +
              branch("%b", "tensor<3xf32>") + ") : (tensor<i1>) -> tensor<2xf32>",
          "branch 1 returns"),
      bad("if_pred", "%p: tensor<2xi1>, %a: tensor<2xf32>",
          "%0 = \"stablehlo.if\"(%p) (" + branch("%a", "tensor<2xf32>") + ", " +
              branch("%a", "tensor<2xf32>") + ") : (tensor<2xi1>) -> tensor<2xf32>",
          "pred must be tensor<i1>, got tensor<2xi1>"),
      ok("case", "%i: tensor<i32>, %a: tensor<2xf32>",
         "%0 = \"stablehlo.case\"(%i) (" + branch("%a", "tensor<2xf32>") + ", " +
             branch("%a", "tensor<2xf32>") + ", " + branch("%a", "tensor<2xf32>") +
             ") : (tensor<i32>) -> tensor<2xf32>"),
      bad("case_index", "%i: tensor<i64>, %a: tensor<2xf32>",
          "%0 = \"stablehlo.case\"(%i) (" + branch("%a", "tensor<2xf32>") +
              ") : (tensor<i64>) -> tensor<2xf32>",
          "index must be tensor<i32>, got tensor<i64>"),
      ok("chlo_scan", "%a: tensor<2x3xi32>, %z: tensor<2xi32>",
         "%0:2 = chlo.scan(%a) inits(%z) dimension=1 {\n  ^bb0(%x: tensor<2xi32>, %c: "
         "tensor<2xi32>):\n"
         "    %s = stablehlo.add %x, %c : tensor<2xi32>\n    stablehlo.return %s, %s : "
         "tensor<2xi32>, tensor<2xi32>\n"
         "  } : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)"),
      bad("chlo_scan_output", "%a: tensor<2x3xi32>, %z: tensor<2xi32>",
          "%0:2 = chlo.scan(%a) inits(%z) dimension=1 {\n  ^bb0(%x: tensor<2xi32>, %c: "
          "tensor<2xi32>):\n"
          "    %s = stablehlo.add %x, %c : tensor<2xi32>\n    stablehlo.return %s, %s : "
          "tensor<2xi32>, tensor<2xi32>\n"
          "  } : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<3x2xi32>, tensor<2xi32>)",
          "result 0 shape [3, 2] does not match the expected [2, 3]"),
  };
}

std::vector<Case> linalgCases() {
  auto dot = [](const std::string& dims, const std::string& types) {
    return "%0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<" +
           dims + ">} : " + types;
  };
  const std::string bmm =
      "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
      "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]";
  const std::string dp = "%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>";
  auto conv = [](const std::string& attrs, const std::string& types) {
    return "%0 = \"stablehlo.convolution\"(%a, %b) {dimension_numbers = #stablehlo.conv<[b, 0, 1, "
           "f]x[0, 1, i, o]->"
           "[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64" +
           attrs + "} : " + types;
  };
  const std::string cp = "%a: tensor<1x8x8x3xf32>, %b: tensor<3x3x3x16xf32>";
  const std::string ctypes = "(tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> ";
  auto fft = [](const std::string& type, const std::string& length, const std::string& types) {
    return "%0 = \"stablehlo.fft\"(%a) {fft_type = #stablehlo<fft_type " + type +
           ">, fft_length = array<i64: " + length + ">} : " + types;
  };
  auto solve = [](bool left, const std::string& types) {
    return std::string("%0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = ") +
           (left ? "true" : "false") +
           ", lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose "
           "NO_TRANSPOSE>} : " +
           types;
  };
  auto ragged = [](const std::string& result) {
    return "%0 = \"chlo.ragged_dot\"(%a, %b, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
           "lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions "
           "= [1], "
           "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = "
           "[0]>} : "
           "(tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> " +
           result;
  };
  return {
      ok("dot_general", dp,
         dot(bmm, "(tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>")),
      ok("dot_general_mixed_types", "%a: tensor<2x3xbf16>, %b: tensor<3x4xf32>",
         dot("lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]",
             "(tensor<2x3xbf16>, tensor<3x4xf32>) -> tensor<2x4xf32>")),
      bad("dot_general_result", dp,
          dot(bmm, "(tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x4x2xf32>"),
          "result shape [5, 4, 2] does not match the expected [5, 2, 4]"),
      bad("dot_general_contracting", "%a: tensor<5x2x3xf32>, %b: tensor<5x2x4xf32>",
          dot(bmm, "(tensor<5x2x3xf32>, tensor<5x2x4xf32>) -> tensor<5x2x4xf32>"),
          "contracting_dimensions: lhs dimension 2 has size 3 but rhs dimension 1 has size 2"),
      bad("dot_general_batching_count", dp,
          dot("lhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
              "rhs_contracting_dimensions = [1]",
              "(tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x5x4xf32>"),
          "lhs_batching_dimensions [0] and rhs_batching_dimensions [] have different lengths"),
      bad("dot_general_repeat", dp,
          dot("lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
              "lhs_contracting_dimensions = [0], "
              "rhs_contracting_dimensions = [1]",
              "(tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>"),
          "lhs_batching_dimensions + lhs_contracting_dimensions [0, 0] repeats a dimension"),
      bad("dot_general_precision", dp,
          "%0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<" + bmm +
              ">, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision "
              "DEFAULT>, "
              "#stablehlo<precision HIGH>]} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> "
              "tensor<5x2x4xf32>",
          "precision_config has 3 entries, expected at most 2"),
      ok("dot_matrix_vector", "%a: tensor<2x3xf32>, %b: tensor<3xf32>",
         "%0 = \"stablehlo.dot\"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>"),
      bad("dot_contracting", "%a: tensor<2x3xf32>, %b: tensor<2xf32>",
          "%0 = \"stablehlo.dot\"(%a, %b) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32>",
          "contracting dimensions differ: lhs [2, 3], rhs [2]"),
      ok("convolution", cp, conv("", ctypes + "tensor<1x6x6x16xf32>")),
      ok("convolution_padded_strided_dilated", cp,
         conv(", window_strides = array<i64: 2, 1>, padding = dense<[[1, 1], [0, 0]]> : "
              "tensor<2x2xi64>, "
              "lhs_dilation = array<i64: 1, 2>, rhs_dilation = array<i64: 1, 2>",
              ctypes + "tensor<1x4x11x16xf32>")),
      ok("convolution_widened_result", "%a: tensor<1x8x8x3xi8>, %b: tensor<3x3x3x16xi8>",
         conv("", "(tensor<1x8x8x3xi8>, tensor<3x3x3x16xi8>) -> tensor<1x6x6x16xi32>")),
      ok("convolution_feature_groups", "%a: tensor<1x8x8x4xf32>, %b: tensor<3x3x2x8xf32>",
         "%0 = \"stablehlo.convolution\"(%a, %b) {dimension_numbers = #stablehlo.conv<[b, 0, 1, "
         "f]x[0, 1, i, o]->"
         "[b, 0, 1, f]>, feature_group_count = 2 : i64, batch_group_count = 1 : i64} : "
         "(tensor<1x8x8x4xf32>, tensor<3x3x2x8xf32>) -> tensor<1x6x6x8xf32>"),
      bad("convolution_result", cp, conv("", ctypes + "tensor<1x8x8x16xf32>"),
          "result shape [1, 8, 8, 16] does not match the expected [1, 6, 6, 16]"),
      bad("convolution_features", "%a: tensor<1x8x8x4xf32>, %b: tensor<3x3x3x16xf32>",
          conv("", "(tensor<1x8x8x4xf32>, tensor<3x3x3x16xf32>) -> tensor<1x6x6x16xf32>"),
          "kernel input feature size 3 must be the input feature size 4 / feature_group_count 1"),
      bad("convolution_strides", cp,
          conv(", window_strides = array<i64: 1>", ctypes + "tensor<1x6x6x16xf32>"),
          "window_strides [1] must have one entry per spatial dimension (2)"),
      bad("convolution_groups", cp,
          "%0 = \"stablehlo.convolution\"(%a, %b) {dimension_numbers = #stablehlo.conv<[b, 0, 1, "
          "f]x[0, 1, i, o]->"
          "[b, 0, 1, f]>, feature_group_count = 0 : i64, batch_group_count = 1 : i64} : " +
              ctypes + "tensor<1x6x6x16xf32>",
          "feature_group_count must be positive, got 0"),
      ok("dynamic_conv", cp,
         "%p = stablehlo.constant dense<[[1, 1], [0, 0]]> : tensor<2x2xi64>\n"
         "%0 = \"stablehlo.dynamic_conv\"(%a, %b, %p) {dimension_numbers = #stablehlo.conv<[b, 0, "
         "1, f]x[0, 1, i, o]->"
         "[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : "
         "(tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>, tensor<2x2xi64>) -> tensor<1x8x6x16xf32>"),
      bad("dynamic_conv_constant_padding", cp,
          "%p = stablehlo.constant dense<[[1, 1], [0, 0]]> : tensor<2x2xi64>\n"
          "%0 = \"stablehlo.dynamic_conv\"(%a, %b, %p) {dimension_numbers = #stablehlo.conv<[b, 0, "
          "1, f]x[0, 1, i, o]->"
          "[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : "
          "(tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>, tensor<2x2xi64>) -> tensor<1x6x6x16xf32>",
          "result shape [1, 6, 6, 16] does not match the expected [1, 8, 6, 16]"),
      bad("dynamic_conv_padding_shape", cp + ", %p: tensor<2xi64>",
          "%0 = \"stablehlo.dynamic_conv\"(%a, %b, %p) {dimension_numbers = #stablehlo.conv<[b, 0, "
          "1, f]x[0, 1, i, o]->"
          "[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : "
          "(tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>, tensor<2xi64>) -> tensor<1x6x6x16xf32>",
          "padding must be an integer tensor of shape [2, 2], got tensor<2xi64>"),
      ok("fft_rfft", "%a: tensor<3x8xf32>",
         fft("RFFT", "8", "(tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>")),
      ok("fft_irfft", "%a: tensor<3x5xcomplex<f32>>",
         fft("IRFFT", "8", "(tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32>")),
      bad("fft_rfft_shape", "%a: tensor<3x8xf32>",
          fft("RFFT", "8", "(tensor<3x8xf32>) -> tensor<3x8xcomplex<f32>>"),
          "result shape [3, 8] does not match the expected [3, 5]"),
      bad("fft_length", "%a: tensor<3x8xf32>",
          fft("RFFT", "6", "(tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>"),
          "must equal fft_length [6]"),
      bad("fft_float_fft", "%a: tensor<8xf32>", fft("FFT", "8", "(tensor<8xf32>) -> tensor<8xf32>"),
          "FFT needs a complex element type, got tensor<8xf32>"),
      ok("triangular_solve", "%a: tensor<2x3x3xf32>, %b: tensor<2x3x4xf32>",
         solve(true, "(tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>")),
      bad("triangular_solve_side", "%a: tensor<2x3x3xf32>, %b: tensor<2x3x4xf32>",
          solve(false, "(tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>"),
          "b [2, 3, 4] must have size 3 in dimension 2 to match a (left_side = false)"),
      bad("triangular_solve_batch", "%a: tensor<2x3x3xf32>, %b: tensor<5x3x4xf32>",
          solve(true, "(tensor<2x3x3xf32>, tensor<5x3x4xf32>) -> tensor<5x3x4xf32>"),
          "batch dimensions differ: a [2, 3, 3], b [5, 3, 4]"),
      ok("cholesky", "%a: tensor<3x3xf64>",
         "%0 = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<3x3xf64>) -> tensor<3x3xf64>"),
      bad("cholesky_square", "%a: tensor<3x4xf64>",
          "%0 = \"stablehlo.cholesky\"(%a) : (tensor<3x4xf64>) -> tensor<3x4xf64>",
          "a must be square in its last two dimensions"),
      ok("chlo_ragged_dot", "%a: tensor<11x5xf32>, %b: tensor<3x5x7xf32>, %g: tensor<3xi64>",
         ragged("tensor<11x7xf32>")),
      bad("chlo_ragged_dot_result",
          "%a: tensor<11x5xf32>, %b: tensor<3x5x7xf32>, %g: tensor<3xi64>",
          ragged("tensor<3x11x7xf32>"),
          "result type tensor<3x11x7xf32> does not match the expected tensor<11x7xf32>"),
  };
}

std::vector<Case> miscCases() {
  auto bnInference = [](const std::string& f) {
    return "%0 = \"stablehlo.batch_norm_inference\"(%x, %s, %s, %s, %s) {epsilon = 1.0e-3 : f32, "
           "feature_index = 1 : "
           "i64} : (tensor<2x4xf32>, tensor<" +
           f + "xf32>, tensor<" + f + "xf32>, tensor<" + f + "xf32>, tensor<" + f +
           "xf32>) -> tensor<2x4xf32>";
  };
  auto alias = [](const std::string& operand, const std::string& types) {
    return "%0 = \"stablehlo.custom_call\"(%a, %t) {call_target_name = \"foo\", "
           "output_operand_aliases = "
           "[#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = " +
           operand + ", operand_tuple_indices = []>]} : " + types;
  };
  const std::string composite = R"(func.func @f(%a: tensor<i64>) {
  %0 = "stablehlo.composite"(%a) {name = "NAME", decomposition = @impl} : (tensor<i64>) -> RESULT
  return
}
func.func private @impl(%a: tensor<i64>) -> tensor<i64> {
  return %a : tensor<i64>
})";
  auto compositeWith = [&](const std::string& name, const std::string& result) {
    std::string text = composite;
    text.replace(text.find("NAME"), 4, name);
    text.replace(text.find("RESULT"), 6, result);
    return text;
  };
  return {
      ok("rng", "%a: tensor<f32>",
         "%s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n"
         "%0 = \"stablehlo.rng\"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution "
         "NORMAL>} : "
         "(tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>"),
      bad("rng_normal_int", "%a: tensor<i32>, %s: tensor<1xi64>",
          "%0 = \"stablehlo.rng\"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution "
          "NORMAL>} : "
          "(tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<3xi32>",
          "a NORMAL distribution needs a floating-point element type"),
      bad("rng_shape_constant", "%a: tensor<f32>",
          "%s = stablehlo.constant dense<[2, 4]> : tensor<2xi64>\n"
          "%0 = \"stablehlo.rng\"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution "
          "UNIFORM>} : "
          "(tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>",
          "result shape [2, 3] does not match the expected [2, 4]"),
      ok("rng_bit_generator", "%s: tensor<2xui64>",
         "%0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = #stablehlo<rng_algorithm "
         "THREE_FRY>} : "
         "(tensor<2xui64>) -> (tensor<2xui64>, tensor<4x4xui32>)"),
      ok("rng_bit_generator_i32_state", "%s: tensor<4xi32>",
         "%0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = #stablehlo<rng_algorithm "
         "PHILOX>} : "
         "(tensor<4xi32>) -> (tensor<4xi32>, tensor<8xi32>)"),
      bad("rng_bit_generator_state_size", "%s: tensor<3xui64>",
          "%0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = #stablehlo<rng_algorithm "
          "THREE_FRY>} : "
          "(tensor<3xui64>) -> (tensor<3xui64>, tensor<4xui32>)",
          "THREE_FRY needs a 128-bit state"),
      bad("rng_bit_generator_output_state", "%s: tensor<2xui64>",
          "%0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = #stablehlo<rng_algorithm "
          "DEFAULT>} : "
          "(tensor<2xui64>) -> (tensor<3xui64>, tensor<4xui32>)",
          "result 0 shape [3] does not match the expected [2]"),
      ok("custom_call_alias", "%a: tensor<4xf64>, %t: tensor<2xi32>",
         alias("0", "(tensor<4xf64>, tensor<2xi32>) -> tensor<4xf64>")),
      bad("custom_call_alias_index", "%a: tensor<4xf64>, %t: tensor<2xi32>",
          alias("2", "(tensor<4xf64>, tensor<2xi32>) -> tensor<4xf64>"),
          "output_operand_aliases names operand 2, but the op has 2 operands"),
      bad("custom_call_alias_type", "%a: tensor<4xf64>, %t: tensor<2xi32>",
          alias("1", "(tensor<4xf64>, tensor<2xi32>) -> tensor<4xf64>"),
          "output_operand_aliases pairs output tensor<4xf64> with operand 1 part tensor<2xi32>"),
      ok("custom_call_check", "%a: tensor<4xf64>",
         "stablehlo.custom_call @check.expect_close(%a, %a) {has_side_effect = true} : "
         "(tensor<4xf64>, tensor<4xf64>) -> ()"),
      bad("custom_call_check_types", "%a: tensor<4xf64>, %b: tensor<4xf32>",
          "stablehlo.custom_call @check.expect_eq(%a, %b) {has_side_effect = true} : "
          "(tensor<4xf64>, tensor<4xf32>) -> ()",
          "@check.expect_eq compares values of one type"),
      bad("custom_call_check_arity", "%a: tensor<4xf64>",
          "stablehlo.custom_call @check.expect_eq(%a) : (tensor<4xf64>) -> ()",
          "@check.expect_eq takes two operands"),
      bad("custom_call_api_version", "%a: tensor<4xf64>",
          "%0 = \"stablehlo.custom_call\"(%a) {call_target_name = \"foo\", api_version = 7 : i32} "
          ": "
          "(tensor<4xf64>) -> tensor<4xf64>",
          "api_version 7 is not one of 0 to 4"),
      bad("get_dimension_size", "%a: tensor<2x3xf32>",
          "%0 = \"stablehlo.get_dimension_size\"(%a) {dimension = 2 : i64} : (tensor<2x3xf32>) -> "
          "tensor<i32>",
          "dimension 2 is outside [0, 2)"),
      ok("batch_norm_inference", "%x: tensor<2x4xf32>, %s: tensor<4xf32>", bnInference("4")),
      bad("batch_norm_inference_scale", "%x: tensor<2x4xf32>, %s: tensor<2xf32>", bnInference("2"),
          "scale has type tensor<2xf32>, expected tensor<4xf32> (one entry per feature of the "
          "operand)"),
      ok("batch_norm_training", "%x: tensor<2x4xf32>, %s: tensor<4xf32>",
         "%0:3 = \"stablehlo.batch_norm_training\"(%x, %s, %s) {epsilon = 1.0e-3 : f32, "
         "feature_index = 1 : i64} : "
         "(tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, "
         "tensor<4xf32>)"),
      bad("batch_norm_training_feature_index", "%x: tensor<2x4xf32>, %s: tensor<4xf32>",
          "%0:3 = \"stablehlo.batch_norm_training\"(%x, %s, %s) {epsilon = 1.0e-3 : f32, "
          "feature_index = 2 : i64} : "
          "(tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, "
          "tensor<4xf32>)",
          "feature_index 2 is outside [0, 2)"),
      bad("batch_norm_grad_output", "%x: tensor<2x4xf32>, %s: tensor<4xf32>, %g: tensor<2x3xf32>",
          "%0:3 = \"stablehlo.batch_norm_grad\"(%x, %s, %s, %s, %g) {epsilon = 1.0e-3 : f32, "
          "feature_index = 1 : i64} "
          ": (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x3xf32>) -> "
          "(tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)",
          "grad_output has type tensor<2x3xf32>, expected tensor<2x4xf32>"),
      bad("optimization_barrier", "%a: tensor<2xf32>",
          "%0 = \"stablehlo.optimization_barrier\"(%a) : (tensor<2xf32>) -> tensor<3xf32>",
          "result shape [3] does not match the expected [2]"),
      {"composite", compositeWith("my.op", "tensor<i64>"), nullptr},
      {"composite_types", compositeWith("my.op", "tensor<i32>"),
       "result type tensor<i32> does not match the expected tensor<i64>"},
      {"composite_name", compositeWith("op", "tensor<i64>"), "must be a namespaced op name"},
      ok("chlo_top_k", "%a: tensor<5x3xf32>",
         "%0:2 = chlo.top_k(%a, k = 2) : tensor<5x3xf32> -> "
         "(tensor<5x2xf32>, tensor<5x2xi32>)"),
      bad("chlo_top_k_k", "%a: tensor<5x3xf32>",
          "%0:2 = chlo.top_k(%a, k = 4) : tensor<5x3xf32> -> "
          "(tensor<5x4xf32>, tensor<5x4xi32>)",
          "k = 4 must lie in [0, 3]"),
      bad("interpreter_probe", "%a: tensor<2xf32>",
          "%0 = \"interpreter.probe\"(%a) {probe_id = \"p\"} : (tensor<2xf32>) -> tensor<3xf32>",
          "result shape [3] does not match the expected [2]"),
      bad("check_expect_eq", "%a: tensor<2xf32>, %b: tensor<3xf32>",
          "\"check.expect_eq\"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> ()",
          "compares values of different types, tensor<2xf32> and tensor<3xf32>"),
      bad("check_expect_eq_const", "%a: tensor<2xf32>",
          "check.expect_eq_const %a, dense<1.0> : tensor<3xf32>",
          "operand type tensor<2xf32> does not match the constant's type tensor<3xf32>"),
  };
}

std::vector<Case> collectiveCases() {
  auto allReduce = [](const std::string& attrs, const std::string& result) {
    return "%0 = \"stablehlo.all_reduce\"(%a) " + reducer("f32") + " {" + attrs +
           "} : (tensor<4xf32>) -> " + result;
  };
  const std::string groups = "replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>";
  auto allGather = [](const std::string& attrs, const std::string& result) {
    return "%0 = \"stablehlo.all_gather\"(%a) {all_gather_dim = 1 : i64, " + attrs +
           "} : (tensor<2x2xi64>) -> " + result;
  };
  auto token = [](const std::string& op, const std::string& rest) {
    return "%0 = \"stablehlo." + op + "\"" + rest;
  };
  return {
      ok("all_reduce", "%a: tensor<4xf32>", allReduce(groups, "tensor<4xf32>")),
      ok("all_reduce_uneven_groups", "%a: tensor<4xf32>",
         allReduce("replica_groups = dense<[[0, 1, 2], [3, -1, -1]]> : tensor<2x3xi64>",
                   "tensor<4xf32>")),
      bad("all_reduce_repeated_id", "%a: tensor<4xf32>",
          allReduce("replica_groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>", "tensor<4xf32>"),
          "names a process more than once"),
      bad("all_reduce_global_ids", "%a: tensor<4xf32>",
          allReduce(groups + ", use_global_device_ids", "tensor<4xf32>"),
          "use_global_device_ids needs a channel_handle with a positive handle"),
      bad("all_reduce_result", "%a: tensor<4xf32>", allReduce(groups, "tensor<2xf32>"),
          "result shape [2] does not match the expected [4]"),
      ok("all_gather", "%a: tensor<2x2xi64>",
         allGather("replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>", "tensor<2x4xi64>")),
      ok("all_gather_cross_partition", "%a: tensor<2x2xi64>",
         allGather("replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, "
                   "channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>",
                   "tensor<2x8xi64>")),
      bad("all_gather_result", "%a: tensor<2x2xi64>",
          allGather("replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>", "tensor<2x8xi64>"),
          "result shape [2, 8] does not match the expected [2, 4] (operand tensor<2x2xi64> "
          "gathered along dimension 1 from groups of 2)"),
      bad("all_gather_dim", "%a: tensor<2x2xi64>",
          "%0 = \"stablehlo.all_gather\"(%a) {all_gather_dim = 2 : i64, replica_groups = "
          "dense<[[0, 1]]> : "
          "tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>",
          "all_gather_dim 2 is outside [0, 2)"),
      ok("all_to_all", "%a: tensor<4x2xf32>",
         "%0 = \"stablehlo.all_to_all\"(%a) {split_dimension = 0 : i64, concat_dimension = 1 : "
         "i64, split_count = 2 : "
         "i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x2xf32>) -> "
         "tensor<2x4xf32>"),
      bad("all_to_all_split_count", "%a: tensor<4x2xf32>",
          "%0 = \"stablehlo.all_to_all\"(%a) {split_dimension = 0 : i64, concat_dimension = 1 : "
          "i64, split_count = 4 : "
          "i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x2xf32>) -> "
          "tensor<1x8xf32>",
          "replica groups have 2 members, but split_count is 4"),
      ok("reduce_scatter", "%a: tensor<4x2xf32>",
         "%0 = \"stablehlo.reduce_scatter\"(%a) " + reducer("f32") +
             " {scatter_dimension = 0 : i64, " + groups +
             "} : (tensor<4x2xf32>) -> tensor<2x2xf32>"),
      bad("reduce_scatter_result", "%a: tensor<4x2xf32>",
          "%0 = \"stablehlo.reduce_scatter\"(%a) " + reducer("f32") +
              " {scatter_dimension = 0 : i64, " + groups +
              "} : (tensor<4x2xf32>) -> tensor<4x2xf32>",
          "result shape [4, 2] does not match the expected [2, 2]"),
      ok("collective_permute", "%a: tensor<2xf32>",
         "%0 = \"stablehlo.collective_permute\"(%a) {source_target_pairs = dense<[[0, 1], [1, 0]]> "
         ": tensor<2x2xi64>} "
         ": (tensor<2xf32>) -> tensor<2xf32>"),
      bad("collective_permute_sources", "%a: tensor<2xf32>",
          "%0 = \"stablehlo.collective_permute\"(%a) {source_target_pairs = dense<[[0, 1], [0, "
          "2]]> : tensor<2x2xi64>} "
          ": (tensor<2xf32>) -> tensor<2xf32>",
          "source_target_pairs sources [0, 0] repeat a process"),
      bad("collective_permute_shape", "%a: tensor<2xf32>",
          "%0 = \"stablehlo.collective_permute\"(%a) {source_target_pairs = dense<[[0, 1, 2]]> : "
          "tensor<1x3xi64>} "
          ": (tensor<2xf32>) -> tensor<2xf32>",
          "source_target_pairs must have shape [k, 2], got [1, 3]"),
      ok("collective_broadcast", "%a: tensor<2xf32>",
         "%0 = \"stablehlo.collective_broadcast\"(%a) {replica_groups = dense<[[0, 1]]> : "
         "tensor<1x2xi64>} : "
         "(tensor<2xf32>) -> tensor<2xf32>"),
      bad("collective_broadcast_roots", "%a: tensor<2xf32>, %r: tensor<2xi32>",
          "%0 = \"stablehlo.collective_broadcast\"(%a, %r) {replica_groups = dense<[[0, 1]]> : "
          "tensor<1x2xi64>, "
          "has_dynamic_root} : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>",
          "the roots operand has type tensor<2xi32>, expected tensor<1xi32>"),
      ok("collective_broadcast_dynamic_root", "%a: tensor<2xf32>, %r: tensor<1xi32>",
         "%0 = \"stablehlo.collective_broadcast\"(%a, %r) {replica_groups = dense<[[0, 1]]> : "
         "tensor<1x2xi64>, "
         "has_dynamic_root} : (tensor<2xf32>, tensor<1xi32>) -> tensor<2xf32>"),
      bad("collective_reduce_result", "%a: tensor<4xf32>",
          "%0 = \"stablehlo.collective_reduce\"(%a) " + reducer("f32") +
              " {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> "
              "tensor<4xi32>",
          "result type tensor<4xi32> does not match the expected tensor<4xf32>"),
      bad("all_gather_negative_id", "%a: tensor<2x2xi64>",
          allGather("replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>", "tensor<2x4xi64>"),
          "replica_groups holds the invalid process id -1"),
      ok("send_to_host", "%a: tensor<2xf32>, %t: !stablehlo.token",
         token("send",
               "(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, "
               "is_host_transfer = true} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token")),
      bad("send_channel_type", "%a: tensor<2xf32>, %t: !stablehlo.token",
          token("send",
                "(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
                "is_host_transfer = true} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token"),
          "a host transfer needs channel type 2, got 1"),
      bad("send_token_last", "%a: tensor<2xf32>, %t: !stablehlo.token",
          token("send",
                "(%t, %a) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : "
                "(!stablehlo.token, tensor<2xf32>) -> !stablehlo.token"),
          "the last of its operands must be a !stablehlo.token"),
      ok("recv_from_host", "%t: !stablehlo.token",
         "%0:2 = \"stablehlo.recv\"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, "
         "type = 3>, "
         "is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)"),
      bad("recv_token_result", "%t: !stablehlo.token",
          "%0:2 = \"stablehlo.recv\"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, "
          "type = 1>} : "
          "(!stablehlo.token) -> (!stablehlo.token, tensor<2xf32>)",
          "the last of its results must be a !stablehlo.token"),
      bad("infeed_token", "%t: !stablehlo.token",
          "%0 = \"stablehlo.infeed\"(%t) : (!stablehlo.token) -> tensor<2xf32>",
          "the last of its results must be a !stablehlo.token"),
      bad("outfeed_result", "%a: tensor<2xf32>, %t: !stablehlo.token",
          "%0 = \"stablehlo.outfeed\"(%a, %t) : (tensor<2xf32>, !stablehlo.token) -> tensor<2xf32>",
          "result type tensor<2xf32> does not match the expected !stablehlo.token"),
      bad("after_all_operand", "%a: tensor<2xf32>",
          "%0 = \"stablehlo.after_all\"(%a) : (tensor<2xf32>) -> !stablehlo.token",
          "operand 0 must be a !stablehlo.token, got tensor<2xf32>"),
      bad("replica_id_type", "", "%0 = \"stablehlo.replica_id\"() : () -> tensor<i32>",
          "result type tensor<i32> does not match the expected tensor<ui32>"),
  };
}

std::vector<Case> allCases() {
  std::vector<Case> all;
  for (auto family : {elementwiseCases, shapeCases, gatherScatterCases, regionCases, linalgCases,
                      miscCases, collectiveCases}) {
    std::vector<Case> cases = family();
    all.insert(all.end(), cases.begin(), cases.end());
  }
  return all;
}

class VerifierRuleTest : public testing::TestWithParam<Case> {};

TEST_P(VerifierRuleTest, Rule) {
  const Case& c = GetParam();
  if (!c.error) {
    try {
      stablehlo::parseModule(c.text);
    } catch (const Error& e) {
      ADD_FAILURE() << "valid program rejected:\n" << e.format() << "\n\n" << c.text;
    }
    return;
  }
  try {
    stablehlo::parseModule(c.text);
    ADD_FAILURE() << "accepted, expected an error containing \"" << c.error << "\":\n" << c.text;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Verify) << e.format();
    EXPECT_NE(e.message().find(c.error), std::string::npos)
        << "message:  " << e.message() << "\nexpected: " << c.error;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, VerifierRuleTest, testing::ValuesIn(allCases()),
                         [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

// Errors name the op and point at its text.
TEST(VerifierTest, ErrorsPointAtTheOp) {
  std::string text = fn("%a: tensor<2x3xf32>",
                        "  %0 = \"stablehlo.reshape\"(%a) : (tensor<2x3xf32>) -> tensor<5xf32>");
  try {
    stablehlo::parseModule(text);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.pos().line, 2u);
    EXPECT_EQ(e.message().rfind("stablehlo.reshape: ", 0), 0u) << e.message();
  }
}

// verifyModuleAll reports every broken op, not just the first.
TEST(VerifierTest, CollectsEveryViolation) {
  std::string text = fn("%a: tensor<2xf32>",
                        "  %0 = \"stablehlo.popcnt\"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
                        "  %1 = \"stablehlo.reshape\"(%a) : (tensor<2xf32>) -> tensor<3xf32>");
  stablehlo::ParseOptions options;
  options.verify = false;
  auto module = stablehlo::parseModule(text, options);
  std::vector<Error> errors = verifyModuleAll(*module);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].message().find("stablehlo.popcnt"), std::string::npos);
  EXPECT_NE(errors[1].message().find("stablehlo.reshape"), std::string::npos);
}

// The shared helpers behind the window and reduction rules.
TEST(VerifierTest, WindowPositions) {
  EXPECT_EQ(windowPositions(4, 2, 2, 0, 0), 2);
  EXPECT_EQ(windowPositions(5, 2, 2, 0, 0), 2);
  EXPECT_EQ(windowPositions(3, 5, 1, 0, 0), 0);        // window larger than the input
  EXPECT_EQ(windowPositions(3, 5, 1, 1, 1), 1);        // padding makes room
  EXPECT_EQ(windowPositions(4, 2, 1, 0, 0, 2), 6);     // base dilation: 7 positions wide
  EXPECT_EQ(windowPositions(4, 2, 1, 0, 0, 1, 3), 1);  // window dilated to 4 fits once
  EXPECT_EQ(windowPositions(0, 1, 1, 0, 0), 0);
  EXPECT_EQ(windowPositions(int64_t{1} << 62, 1, 1, int64_t{1} << 62, int64_t{1} << 62), INT64_MAX);
}

TEST(VerifierTest, Promotion) {
  EXPECT_TRUE(isPromotable(DType::BF16, DType::F32));
  EXPECT_TRUE(isPromotable(DType::I8, DType::I32));
  EXPECT_TRUE(isPromotable(DType::I1, DType::I1));
  EXPECT_FALSE(isPromotable(DType::F32, DType::F16));
  EXPECT_FALSE(isPromotable(DType::I32, DType::F32));
  EXPECT_FALSE(isPromotable(DType::I1, DType::I8));
  EXPECT_TRUE(isPromotable(DType::C64, DType::C128));
}

}  // namespace
}  // namespace kiln
