// Test support: a small sample program per op of the op registry, for the cpu backend's
// completeness test.
#include "backends/cpu/op_samples.h"

namespace kiln::cpu::test_util {
namespace {

// async_start and async_done come as a pair: no executor runs async computations.
constexpr const char* kAsync = R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %f = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<4x3xf32>):
    %s = stablehlo.sine %a : tensor<4x3xf32>
    stablehlo.return %s : tensor<4x3xf32>
  }) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = "stablehlo.async_done"(%f) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir";

// An if that returns a tuple keeps tuple and get_tuple_element: the simplifier folds
// away a get_tuple_element of a tuple it sees.
constexpr const char* kTuple = R"mlir(
func.func @main(%p: tensor<i1>, %x: tensor<4x3xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %t = "stablehlo.if"(%p) ({
    %a = stablehlo.tuple %x, %y : tuple<tensor<4x3xf32>, tensor<4x3xf32>>
    stablehlo.return %a : tuple<tensor<4x3xf32>, tensor<4x3xf32>>
  }, {
    %b = stablehlo.tuple %y, %x : tuple<tensor<4x3xf32>, tensor<4x3xf32>>
    stablehlo.return %b : tuple<tensor<4x3xf32>, tensor<4x3xf32>>
  }) : (tensor<i1>) -> tuple<tensor<4x3xf32>, tensor<4x3xf32>>
  %r = stablehlo.get_tuple_element %t[0]
      : (tuple<tensor<4x3xf32>, tensor<4x3xf32>>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir";

}  // namespace

const std::map<std::string_view, std::string>& opSamples() {
  // Collectives run over one device (replica_groups [[0]]); like send, recv, replica_id and
  // partition_id they run only under interpreter.run_parallel.
  static const std::map<std::string_view, std::string> samples = {
      // The call is on a recursive cycle, so the inliner keeps it.
      {"func.call", R"mlir(
func.func private @repeat_sine(%n: tensor<i32>, %x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %done = stablehlo.compare LE, %n, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %r = "stablehlo.if"(%done) ({
    stablehlo.return %x : tensor<4x3xf32>
  }, {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %m = stablehlo.subtract %n, %one : tensor<i32>
    %s = stablehlo.sine %x : tensor<4x3xf32>
    %y = func.call @repeat_sine(%m, %s) : (tensor<i32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    stablehlo.return %y : tensor<4x3xf32>
  }) : (tensor<i1>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %n = stablehlo.constant dense<3> : tensor<i32>
  %r = func.call @repeat_sine(%n, %x) : (tensor<i32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.after_all", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, !stablehlo.token) {
  %t0 = stablehlo.after_all : !stablehlo.token
  %t1 = stablehlo.after_all : !stablehlo.token
  %t = stablehlo.after_all %t0, %t1 : !stablehlo.token
  return %x, %t : tensor<4x3xf32>, !stablehlo.token
}
)mlir"},
      {"stablehlo.all_gather", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.all_gather"(%x) {
    all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>
  } : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.all_reduce", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.all_to_all", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.all_to_all"(%x) {
    split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 1 : i64,
    replica_groups = dense<[[0]]> : tensor<1x1xi64>
  } : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.async_done", kAsync},
      {"stablehlo.async_start", kAsync},
      {"stablehlo.batch_norm_grad", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %scale: tensor<3xf32>, %dy: tensor<4x3xf32>)
    -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %mean = stablehlo.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %var = stablehlo.constant dense<[1.0, 0.5, 2.0]> : tensor<3xf32>
  %r:3 = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %dy)
      {epsilon = 1.0e-3 : f32, feature_index = 1 : i64}
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>)
      -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
}
)mlir"},
      {"stablehlo.batch_norm_inference", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %scale: tensor<3xf32>, %offset: tensor<3xf32>)
    -> tensor<4x3xf32> {
  %mean = stablehlo.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %var = stablehlo.constant dense<[1.0, 0.5, 2.0]> : tensor<3xf32>
  %r = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var)
      {epsilon = 1.0e-3 : f32, feature_index = 1 : i64}
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
      -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.batch_norm_training", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %scale: tensor<3xf32>, %offset: tensor<3xf32>)
    -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r:3 = "stablehlo.batch_norm_training"(%x, %scale, %offset)
      {epsilon = 1.0e-3 : f32, feature_index = 1 : i64}
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
      -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
}
)mlir"},
      {"stablehlo.bitcast_convert", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xi32> {
  %r = stablehlo.bitcast_convert %x : (tensor<4x3xf32>) -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}
)mlir"},
      {"stablehlo.broadcast", R"mlir(
func.func @main(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = stablehlo.broadcast %x, sizes = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)mlir"},
      {"stablehlo.broadcast_in_dim", R"mlir(
func.func @main(%x: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.case", R"mlir(
func.func @main(%k: tensor<i32>, %x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.case"(%k) ({
    stablehlo.return %x : tensor<4x3xf32>
  }, {
    %t = stablehlo.tanh %x : tensor<4x3xf32>
    stablehlo.return %t : tensor<4x3xf32>
  }, {
    %n = stablehlo.negate %x : tensor<4x3xf32>
    stablehlo.return %n : tensor<4x3xf32>
  }) : (tensor<i32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // x + 4I has a diagonally dominant lower triangle: positive definite.
      {"stablehlo.cholesky", R"mlir(
func.func @main(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %d = stablehlo.constant dense<[[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]]>
      : tensor<3x3xf32>
  %a = stablehlo.add %x, %d : tensor<3x3xf32>
  %r = stablehlo.cholesky %a, lower = true : tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}
)mlir"},
      {"stablehlo.clamp", R"mlir(
func.func @main(%lo: tensor<4x3xf32>, %x: tensor<4x3xf32>, %hi: tensor<4x3xf32>)
    -> tensor<4x3xf32> {
  %r = stablehlo.clamp %lo, %x, %hi : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.collective_broadcast", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0]]> : tensor<1x1xi64>}
      : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.collective_permute", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>}
      : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.collective_reduce", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.collective_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.compare", R"mlir(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %r = stablehlo.compare GT, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}
)mlir"},
      {"stablehlo.complex", R"mlir(
func.func @main(%re: tensor<4x3xf32>, %im: tensor<4x3xf32>) -> tensor<4x3xcomplex<f32>> {
  %r = stablehlo.complex %re, %im : tensor<4x3xcomplex<f32>>
  return %r : tensor<4x3xcomplex<f32>>
}
)mlir"},
      {"stablehlo.composite", R"mlir(
func.func private @sin_times(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %s = stablehlo.sine %a : tensor<4x3xf32>
  %r = stablehlo.multiply %s, %b : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func @main(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = stablehlo.composite "my.sin_times" %x, %y {decomposition = @sin_times}
      : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.concatenate", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %y: tensor<2x3xf32>) -> tensor<6x3xf32> {
  %r = stablehlo.concatenate %x, %y, dim = 0 : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}
)mlir"},
      {"stablehlo.constant", R"mlir(
func.func @main() -> tensor<2x3xf32> {
  %r = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)mlir"},
      {"stablehlo.convert", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xi32> {
  %r = stablehlo.convert %x : (tensor<4x3xf32>) -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}
)mlir"},
      {"stablehlo.convolution", R"mlir(
func.func @main(%x: tensor<1x5x5x2xf32>, %k: tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32> {
  %r = stablehlo.convolution(%x, %k)
      dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
      window = {stride = [2, 2], pad = [[1, 1], [1, 1]]}
      {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
      : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}
)mlir"},
      // jaxlib's Cholesky target (column-major, uplo 'L'): the cpu backend calls LAPACK.
      {"stablehlo.custom_call", R"mlir(
func.func @main(%x: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>) {
  %d = stablehlo.constant dense<[[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]]>
      : tensor<3x3xf32>
  %a = stablehlo.add %x, %d : tensor<3x3xf32>
  %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {
    mhlo.backend_config = {uplo = 76 : ui8},
    operand_layouts = [dense<[0, 1]> : tensor<2xindex>],
    result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]
  } : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return %r#0, %r#1 : tensor<3x3xf32>, tensor<i32>
}
)mlir"},
      {"stablehlo.dot", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %y: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %r = stablehlo.dot %x, %y : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
)mlir"},
      {"stablehlo.dot_general", R"mlir(
func.func @main(%x: tensor<2x4x3xf32>, %y: tensor<2x3x2xf32>) -> tensor<2x4x2xf32> {
  %r = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x3xf32>, tensor<2x3x2xf32>) -> tensor<2x4x2xf32>
  return %r : tensor<2x4x2xf32>
}
)mlir"},
      // Constant shape operands, as JAX exports them.
      {"stablehlo.dynamic_broadcast_in_dim", R"mlir(
func.func @main(%x: tensor<3xf32>) -> tensor<4x3xf32> {
  %shape = stablehlo.constant dense<[4, 3]> : tensor<2xi64>
  %r = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [1]
      : (tensor<3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // Constant shape operands, as JAX exports them.
      {"stablehlo.dynamic_conv", R"mlir(
func.func @main(%x: tensor<1x2x5xf32>, %k: tensor<3x2x3xf32>) -> tensor<1x3x5xf32> {
  %pad = stablehlo.constant dense<[[1, 1]]> : tensor<1x2xi64>
  %r = "stablehlo.dynamic_conv"(%x, %k, %pad) {
    dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>,
    window_strides = array<i64: 1>, feature_group_count = 1 : i64, batch_group_count = 1 : i64
  } : (tensor<1x2x5xf32>, tensor<3x2x3xf32>, tensor<1x2xi64>) -> tensor<1x3x5xf32>
  return %r : tensor<1x3x5xf32>
}
)mlir"},
      // Constant shape operands, as JAX exports them.
      {"stablehlo.dynamic_gather", R"mlir(
func.func @main(%table: tensor<5x3xf32>, %ids: tensor<4x1xi32>) -> tensor<4x2xf32> {
  %sizes = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %r = "stablehlo.dynamic_gather"(%table, %ids, %sizes) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0],
                                          start_index_map = [0], index_vector_dim = 1>
  } : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
)mlir"},
      // Constant shape operands, as JAX exports them.
      {"stablehlo.dynamic_iota", R"mlir(
func.func @main() -> tensor<4x3xf32> {
  %shape = stablehlo.constant dense<[4, 3]> : tensor<2xi64>
  %r = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi64>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // Constant shape operands, as JAX exports them.
      {"stablehlo.dynamic_pad", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %v: tensor<f32>) -> tensor<7x6xf32> {
  %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %hi = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
  %in = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %r = stablehlo.dynamic_pad %x, %v, %lo, %hi, %in
      : (tensor<4x3xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
      -> tensor<7x6xf32>
  return %r : tensor<7x6xf32>
}
)mlir"},
      // Constant shape operands, as JAX exports them.
      {"stablehlo.dynamic_reshape", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<2x6xf32> {
  %shape = stablehlo.constant dense<[2, 6]> : tensor<2xi64>
  %r = stablehlo.dynamic_reshape %x, %shape : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}
)mlir"},
      {"stablehlo.dynamic_slice", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x2xf32> {
  %r = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2]
      : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
)mlir"},
      {"stablehlo.dynamic_update_slice", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>) -> tensor<4x3xf32> {
  %r = stablehlo.dynamic_update_slice %x, %u, %i, %i
      : (tensor<4x3xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.fft", R"mlir(
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x3xcomplex<f32>> {
  %r = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<3x4xf32>) -> tensor<3x3xcomplex<f32>>
  return %r : tensor<3x3xcomplex<f32>>
}
)mlir"},
      {"stablehlo.gather", R"mlir(
func.func @main(%table: tensor<5x3xf32>, %ids: tensor<4x1xi32>) -> tensor<4x3xf32> {
  %r = "stablehlo.gather"(%table, %ids) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0],
                                          start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 3>
  } : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.get_dimension_size", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<i32> {
  %r = stablehlo.get_dimension_size %x, dim = 1 : (tensor<4x3xf32>) -> tensor<i32>
  return %r : tensor<i32>
}
)mlir"},
      {"stablehlo.get_tuple_element", kTuple},
      {"stablehlo.if", R"mlir(
func.func @main(%p: tensor<i1>, %x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.if"(%p) ({
    %s = stablehlo.sine %x : tensor<4x3xf32>
    stablehlo.return %s : tensor<4x3xf32>
  }, {
    %c = stablehlo.cosine %x : tensor<4x3xf32>
    stablehlo.return %c : tensor<4x3xf32>
  }) : (tensor<i1>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.imag", R"mlir(
func.func @main(%z: tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32> {
  %r = stablehlo.imag %z : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // Needs a tensor<4x3xf32> queued on the device's infeed.
      {"stablehlo.infeed", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %t = stablehlo.after_all : !stablehlo.token
  %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<4x3xf32>, !stablehlo.token)
  %r = stablehlo.add %x, %v#0 : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.iota", R"mlir(
func.func @main() -> tensor<4x3xf32> {
  %r = stablehlo.iota dim = 0 : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.is_finite", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xi1> {
  %r = stablehlo.is_finite %x : (tensor<4x3xf32>) -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}
)mlir"},
      {"stablehlo.map", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.map"(%x, %y) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.multiply %a, %b : tensor<f32>
    %s = stablehlo.sine %a : tensor<f32>
    %t = stablehlo.add %p, %s : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.optimization_barrier", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %r:2 = stablehlo.optimization_barrier %x, %y : tensor<4x3xf32>, tensor<4x3xf32>
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.outfeed", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> !stablehlo.token {
  %t = stablehlo.after_all : !stablehlo.token
  %r = "stablehlo.outfeed"(%x, %t) : (tensor<4x3xf32>, !stablehlo.token) -> !stablehlo.token
  return %r : !stablehlo.token
}
)mlir"},
      {"stablehlo.pad", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %v: tensor<f32>) -> tensor<7x6xf32> {
  %r = stablehlo.pad %x, %v, low = [1, 0], high = [2, 1], interior = [0, 1]
      : (tensor<4x3xf32>, tensor<f32>) -> tensor<7x6xf32>
  return %r : tensor<7x6xf32>
}
)mlir"},
      {"stablehlo.partition_id", R"mlir(
func.func @main() -> tensor<ui32> {
  %r = stablehlo.partition_id : tensor<ui32>
  return %r : tensor<ui32>
}
)mlir"},
      {"stablehlo.real", R"mlir(
func.func @main(%z: tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32> {
  %r = stablehlo.real %z : (tensor<4x3xcomplex<f32>>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // A host transfer: needs a peer (interpreter.run_parallel).
      {"stablehlo.recv", R"mlir(
func.func @main() -> (tensor<4x3xf32>, !stablehlo.token) {
  %t = stablehlo.after_all : !stablehlo.token
  %v:2 = "stablehlo.recv"(%t) {
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true
  } : (!stablehlo.token) -> (tensor<4x3xf32>, !stablehlo.token)
  return %v#0, %v#1 : tensor<4x3xf32>, !stablehlo.token
}
)mlir"},
      {"stablehlo.reduce", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<3xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
)mlir"},
      {"stablehlo.reduce_precision", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = stablehlo.reduce_precision %x, format = e5m10 : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.reduce_scatter", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>}
      : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.reduce_window", R"mlir(
func.func @main(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}
      : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)mlir"},
      {"stablehlo.replica_id", R"mlir(
func.func @main() -> tensor<ui32> {
  %r = stablehlo.replica_id : tensor<ui32>
  return %r : tensor<ui32>
}
)mlir"},
      {"stablehlo.reshape", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<2x6xf32> {
  %r = stablehlo.reshape %x : (tensor<4x3xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}
)mlir"},
      {"stablehlo.reverse", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = stablehlo.reverse %x, dims = [0, 1] : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.rng", R"mlir(
func.func @main(%lo: tensor<f32>, %hi: tensor<f32>) -> tensor<4x3xf32> {
  %shape = stablehlo.constant dense<[4, 3]> : tensor<2xi64>
  %r = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM
      : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.rng_bit_generator", R"mlir(
func.func @main(%state: tensor<2xui64>) -> (tensor<2xui64>, tensor<4x3xui32>) {
  %s, %bits = stablehlo.rng_bit_generator %state, algorithm = THREE_FRY
      : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x3xui32>)
  return %s, %bits : tensor<2xui64>, tensor<4x3xui32>
}
)mlir"},
      {"stablehlo.scatter", R"mlir(
func.func @main(%x: tensor<5x3xf32>, %ids: tensor<4x1xi32>, %u: tensor<4x3xf32>)
    -> tensor<5x3xf32> {
  %r = "stablehlo.scatter"(%x, %ids, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
        update_window_dims = [1], inserted_window_dims = [0],
        scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
  } : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}
)mlir"},
      {"stablehlo.select", R"mlir(
func.func @main(%p: tensor<4x3xi1>, %x: tensor<4x3xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = stablehlo.select %p, %x, %y : tensor<4x3xi1>, tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.select_and_scatter", R"mlir(
func.func @main(%x: tensor<4x6xf32>, %src: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.select_and_scatter"(%x, %src, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}
      : (tensor<4x6xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
)mlir"},
      // A host transfer: needs a peer (interpreter.run_parallel).
      {"stablehlo.send", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> !stablehlo.token {
  %t = stablehlo.after_all : !stablehlo.token
  %r = "stablehlo.send"(%x, %t) {
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true
  } : (tensor<4x3xf32>, !stablehlo.token) -> !stablehlo.token
  return %r : !stablehlo.token
}
)mlir"},
      {"stablehlo.slice", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<2x2xf32> {
  %r = stablehlo.slice %x [1:4:2, 0:2] : (tensor<4x3xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
)mlir"},
      {"stablehlo.sort", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>) {
  %i = stablehlo.iota dim = 1 : tensor<4x3xi32>
  %r:2 = "stablehlo.sort"(%x, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true}
      : (tensor<4x3xf32>, tensor<4x3xi32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<4x3xi32>
}
)mlir"},
      {"stablehlo.torch_index_select", R"mlir(
func.func @main(%x: tensor<5x3xf32>, %ids: tensor<4xi32>) -> tensor<4x3xf32> {
  %r = "stablehlo.torch_index_select"(%x, %ids) {dim = 0 : i64, batch_dims = 0 : i64}
      : (tensor<5x3xf32>, tensor<4xi32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      {"stablehlo.transpose", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<3x4xf32> {
  %r = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
)mlir"},
      // m + 4I keeps the solve well conditioned.
      {"stablehlo.triangular_solve", R"mlir(
func.func @main(%m: tensor<3x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %d = stablehlo.constant dense<[[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]]>
      : tensor<3x3xf32>
  %a = stablehlo.add %m, %d : tensor<3x3xf32>
  %r = "stablehlo.triangular_solve"(%a, %b) {
    left_side = true, lower = true, unit_diagonal = false,
    transpose_a = #stablehlo<transpose NO_TRANSPOSE>
  } : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}
)mlir"},
      {"stablehlo.tuple", kTuple},
      // Plain integer types: kiln parses no !quant types, and no executor runs quantization.
      {"stablehlo.uniform_dequantize", R"mlir(
func.func @main(%x: tensor<4x3xi8>) -> tensor<4x3xf32> {
  %r = stablehlo.uniform_dequantize %x : (tensor<4x3xi8>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // Plain integer types: kiln parses no !quant types, and no executor runs quantization.
      {"stablehlo.uniform_quantize", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xi8> {
  %r = stablehlo.uniform_quantize %x : (tensor<4x3xf32>) -> tensor<4x3xi8>
  return %r : tensor<4x3xi8>
}
)mlir"},
      {"stablehlo.while", R"mlir(
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<4x3xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %j = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.sine %acc : tensor<4x3xf32>
    stablehlo.return %j, %a : tensor<i32>, tensor<4x3xf32>
  }
  return %r#1 : tensor<4x3xf32>
}
)mlir"},
      // A loop fusion as the fusion pass writes it.
      {"kiln.fusion", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "kiln.fusion"(%x, %y) ({
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>):
    %s = stablehlo.add %a, %b : tensor<4x3xf32>
    %t = stablehlo.tanh %s : tensor<4x3xf32>
    stablehlo.return %t : tensor<4x3xf32>
  }) {kind = "loop"} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // The inliner replaces it by the body of @f, its primal.
      {"kiln.custom_jvp", R"mlir(
func.func private @f(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %t = stablehlo.tanh %x : tensor<4x3xf32>
  return %t : tensor<4x3xf32>
}
func.func private @f_jvp(%x: tensor<4x3xf32>, %dx: tensor<4x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %t = stablehlo.tanh %x : tensor<4x3xf32>
  %t2 = stablehlo.multiply %t, %t : tensor<4x3xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4x3xf32>
  %d = stablehlo.subtract %one, %t2 : tensor<4x3xf32>
  %dt = stablehlo.multiply %dx, %d : tensor<4x3xf32>
  return %t, %dt : tensor<4x3xf32>, tensor<4x3xf32>
}
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "kiln.custom_jvp"(%x) {primal = @f, jvp = @f_jvp}
      : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // The inliner replaces it by the body of @f, its primal.
      {"kiln.custom_vjp", R"mlir(
func.func private @f(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %s = stablehlo.sine %x : tensor<4x3xf32>
  return %s : tensor<4x3xf32>
}
func.func private @f_fwd(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %s = stablehlo.sine %x : tensor<4x3xf32>
  %c = stablehlo.cosine %x : tensor<4x3xf32>
  return %s, %c : tensor<4x3xf32>, tensor<4x3xf32>
}
func.func private @f_bwd(%c: tensor<4x3xf32>, %g: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = stablehlo.multiply %g, %c : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "kiln.custom_vjp"(%x) {primal = @f, fwd = @f_fwd, bwd = @f_bwd}
      : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // Exists only inside vjp, which transposes it: no executor runs it.
      {"kiln.custom_lin", R"mlir(
func.func private @f_bwd(%c: tensor<4x3xf32>, %g: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = stablehlo.multiply %g, %c : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func @main(%c: tensor<4x3xf32>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "kiln.custom_lin"(%c, %t) {bwd = @f_bwd, num_residuals = 1 : i64}
      : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // The inliner replaces it by its region.
      {"kiln.checkpoint", R"mlir(
func.func @main(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "kiln.checkpoint"(%x, %y) ({
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>):
    %m = stablehlo.multiply %a, %b : tensor<4x3xf32>
    %t = stablehlo.tanh %m : tensor<4x3xf32>
    stablehlo.return %t : tensor<4x3xf32>
  }) {policy = "nothing_saveable"} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir"},
      // The test harness's constants: IREE's tests and MLIR's arith dialect write them.
      {"util.unfoldable_constant", R"mlir(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = stablehlo.add %x, %c : tensor<4xf32>
  return %r : tensor<4xf32>
}
)mlir"},
      {"arith.constant", R"mlir(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = stablehlo.add %x, %c : tensor<4xf32>
  return %r : tensor<4xf32>
}
)mlir"},
  };
  return samples;
}

}  // namespace kiln::cpu::test_util
