// Softmax over the last axis of a 2-D tensor, written as StableHLO by hand.
// `kiln run examples/softmax.mlir --random-inputs 1` runs it on the interpreter.
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %neg_inf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %neg_inf) applies stablehlo.maximum across dimensions = [1]
      : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %max_b = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %shifted = stablehlo.subtract %x, %max_b : tensor<4x8xf32>
  %e = stablehlo.exponential %shifted : tensor<4x8xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %sum_b = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %y = stablehlo.divide %e, %sum_b : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
