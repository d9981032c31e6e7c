// W2: tanh(x*0.5 + 1) * logistic(x) - x*x on 2^24 f32: transcendental-bound.
func.func @main(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %half = stablehlo.constant dense<0.5> : tensor<16777216xf32>
  %one = stablehlo.constant dense<1.0> : tensor<16777216xf32>
  %s = stablehlo.multiply %x, %half : tensor<16777216xf32>
  %t = stablehlo.add %s, %one : tensor<16777216xf32>
  %th = stablehlo.tanh %t : tensor<16777216xf32>
  %l = stablehlo.logistic %x : tensor<16777216xf32>
  %p = stablehlo.multiply %th, %l : tensor<16777216xf32>
  %sq = stablehlo.multiply %x, %x : tensor<16777216xf32>
  %r = stablehlo.subtract %p, %sq : tensor<16777216xf32>
  return %r : tensor<16777216xf32>
}
