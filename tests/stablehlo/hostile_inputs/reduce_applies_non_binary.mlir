func.func @f(%a: tensor<2xf32>, %i: tensor<f32>) {
  %0 = stablehlo.reduce(%a init: %i) applies stablehlo.negate across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return
}
