// A program as JAX prints it without its weights: the constants' data is elided.
module @jit_f {
  func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<2x4xf32> {
    %w = stablehlo.constant dense_resource<__elided__> : tensor<3x4xf32> loc("params/w")
    %b = stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
    %0 = stablehlo.dot_general %arg0, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x4xf32>
    return %2 : tensor<2x4xf32>
  }
}
