// W3: softmax over the rows of a 4096x4096 f32 matrix.
func.func @main(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1]
      : (tensor<4096x4096xf32>, tensor<f32>) -> tensor<4096xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4096xf32>) -> tensor<4096x4096xf32>
  %d = stablehlo.subtract %x, %mb : tensor<4096x4096xf32>
  %e = stablehlo.exponential %d : tensor<4096x4096xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<4096x4096xf32>, tensor<f32>) -> tensor<4096xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4096xf32>) -> tensor<4096x4096xf32>
  %y = stablehlo.divide %e, %sb : tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
