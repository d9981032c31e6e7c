// W7: the row sums and the column sums of an 8192x8192 f32 matrix (256 MiB read).
func.func @main(%x: tensor<8192x8192xf32>) -> (tensor<8192xf32>, tensor<8192xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %rows = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<8192x8192xf32>, tensor<f32>) -> tensor<8192xf32>
  %cols = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<8192x8192xf32>, tensor<f32>) -> tensor<8192xf32>
  return %rows, %cols : tensor<8192xf32>, tensor<8192xf32>
}
