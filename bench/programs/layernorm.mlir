// Layer normalization over the last axis of a 512x1024 f32 batch with scale and bias,
// as flax.linen.LayerNorm computes it: mean and mean of squares, then normalize.
func.func @main(%x: tensor<512x1024xf32>, %gamma: tensor<1024xf32>, %beta: tensor<1024xf32>)
    -> tensor<512x1024xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<1024.0> : tensor<512xf32>
  %eps = stablehlo.constant dense<1.0e-5> : tensor<512xf32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<512x1024xf32>, tensor<f32>) -> tensor<512xf32> loc("layernorm.py":10:11)
  %x2 = stablehlo.multiply %x, %x : tensor<512x1024xf32> loc("layernorm.py":11:12)
  %sum2 = stablehlo.reduce(%x2 init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<512x1024xf32>, tensor<f32>) -> tensor<512xf32> loc("layernorm.py":11:12)
  %mean = stablehlo.divide %sum, %n : tensor<512xf32> loc("layernorm.py":10:11)
  %mean2 = stablehlo.divide %sum2, %n : tensor<512xf32> loc("layernorm.py":11:12)
  %msq = stablehlo.multiply %mean, %mean : tensor<512xf32> loc("layernorm.py":12:10)
  %var = stablehlo.subtract %mean2, %msq : tensor<512xf32> loc("layernorm.py":12:10)
  %ve = stablehlo.add %var, %eps : tensor<512xf32> loc("layernorm.py":13:10)
  %rstd = stablehlo.rsqrt %ve : tensor<512xf32> loc("layernorm.py":13:10)
  %mean_b = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<512xf32>) -> tensor<512x1024xf32> loc("layernorm.py":14:9)
  %rstd_b = stablehlo.broadcast_in_dim %rstd, dims = [0] : (tensor<512xf32>) -> tensor<512x1024xf32> loc("layernorm.py":14:9)
  %xc = stablehlo.subtract %x, %mean_b : tensor<512x1024xf32> loc("layernorm.py":14:9)
  %xn = stablehlo.multiply %xc, %rstd_b : tensor<512x1024xf32> loc("layernorm.py":14:9)
  %g = stablehlo.broadcast_in_dim %gamma, dims = [1] : (tensor<1024xf32>) -> tensor<512x1024xf32> loc("layernorm.py":15:9)
  %b = stablehlo.broadcast_in_dim %beta, dims = [1] : (tensor<1024xf32>) -> tensor<512x1024xf32> loc("layernorm.py":15:9)
  %scaled = stablehlo.multiply %xn, %g : tensor<512x1024xf32> loc("layernorm.py":15:9)
  %y = stablehlo.add %scaled, %b : tensor<512x1024xf32> loc("layernorm.py":15:9)
  return %y : tensor<512x1024xf32>
}
