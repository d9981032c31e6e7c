func.func @main(%x: tensor<2x3xf32>, %z: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %y = "stablehlo.add"(%x, %z) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
