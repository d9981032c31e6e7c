// W4: layer normalization over the rows of an 8192x1024 f32 batch with scale and bias:
// mean and mean of squares in one pass, then normalize.
func.func @main(%x: tensor<8192x1024xf32>, %gamma: tensor<1024xf32>, %beta: tensor<1024xf32>) -> tensor<8192x1024xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %inv_n = stablehlo.constant dense<9.765625e-04> : tensor<8192xf32>
  %eps = stablehlo.constant dense<1.0e-05> : tensor<8192xf32>
  %sq = stablehlo.multiply %x, %x : tensor<8192x1024xf32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<8192x1024xf32>, tensor<f32>) -> tensor<8192xf32>
  %sumsq = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<8192x1024xf32>, tensor<f32>) -> tensor<8192xf32>
  %mean = stablehlo.multiply %sum, %inv_n : tensor<8192xf32>
  %meansq = stablehlo.multiply %sumsq, %inv_n : tensor<8192xf32>
  %m2 = stablehlo.multiply %mean, %mean : tensor<8192xf32>
  %var = stablehlo.subtract %meansq, %m2 : tensor<8192xf32>
  %ve = stablehlo.add %var, %eps : tensor<8192xf32>
  %rstd = stablehlo.rsqrt %ve : tensor<8192xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<8192xf32>) -> tensor<8192x1024xf32>
  %rb = stablehlo.broadcast_in_dim %rstd, dims = [0] : (tensor<8192xf32>) -> tensor<8192x1024xf32>
  %gb = stablehlo.broadcast_in_dim %gamma, dims = [1] : (tensor<1024xf32>) -> tensor<8192x1024xf32>
  %bb = stablehlo.broadcast_in_dim %beta, dims = [1] : (tensor<1024xf32>) -> tensor<8192x1024xf32>
  %c = stablehlo.subtract %x, %mb : tensor<8192x1024xf32>
  %n = stablehlo.multiply %c, %rb : tensor<8192x1024xf32>
  %s = stablehlo.multiply %n, %gb : tensor<8192x1024xf32>
  %y = stablehlo.add %s, %bb : tensor<8192x1024xf32>
  return %y : tensor<8192x1024xf32>
}
