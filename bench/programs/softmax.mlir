// Softmax over the last axis of a 512x1024 f32 batch, as jax.nn.softmax lowers it.
func.func @main(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %neg_inf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %neg_inf) applies stablehlo.maximum across dimensions = [1]
      : (tensor<512x1024xf32>, tensor<f32>) -> tensor<512xf32> loc("softmax.py":4:9)
  %max_b = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<512xf32>) -> tensor<512x1024xf32> loc("softmax.py":5:13)
  %shifted = stablehlo.subtract %x, %max_b : tensor<512x1024xf32> loc("softmax.py":5:13)
  %e = stablehlo.exponential %shifted : tensor<512x1024xf32> loc("softmax.py":5:9)
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<512x1024xf32>, tensor<f32>) -> tensor<512xf32> loc("softmax.py":6:9)
  %sum_b = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<512xf32>) -> tensor<512x1024xf32> loc("softmax.py":7:11)
  %y = stablehlo.divide %e, %sum_b : tensor<512x1024xf32> loc("softmax.py":7:11)
  return %y : tensor<512x1024xf32>
}
