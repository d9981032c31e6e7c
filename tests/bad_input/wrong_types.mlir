func.func @main(%x: tensor<2xf32>, %n: tensor<2xi32>) -> tensor<2xf32> {
  %y = "stablehlo.add"(%x, %n) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
