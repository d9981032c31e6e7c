// loss(w, x) = sum(tanh(x·w)²) for the CLI's autodiff tests.
func.func @main(%w: tensor<3x2xf32>, %x: tensor<4x3xf32>) -> tensor<f32> {
  %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %t = stablehlo.tanh %h : tensor<4x2xf32>
  %s = stablehlo.multiply %t, %t : tensor<4x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %l = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x2xf32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
