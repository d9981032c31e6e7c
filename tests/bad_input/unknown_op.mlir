func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = "stablehlo.frobnicate"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
