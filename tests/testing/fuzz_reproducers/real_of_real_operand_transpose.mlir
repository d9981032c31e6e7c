// kiln fuzz seed 323 (fixed): "jvp/vjp threw: stablehlo.scatter: update 0 element type
// complex<f64> differs from input 0's f64": the transpose of real() of a real operand made a
// complex cotangent.
// --seed 323
module {
  func.func @main(%arg0: tensor<f16>) -> tensor<3xf16> {
    %0 = stablehlo.reshape %arg0 : (tensor<f16>) -> tensor<1xf16>
    %1 = stablehlo.constant dense<[[-1], [0], [-1]]> : tensor<3x1xi32>
    %2 = "stablehlo.gather"(%0, %1) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : (tensor<1xf16>, tensor<3x1xi32>) -> tensor<3xf16>
    %3 = stablehlo.real %2 : tensor<3xf16>
    return %3 : tensor<3xf16>
  }
}
