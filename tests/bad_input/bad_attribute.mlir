func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.transpose %x, dims = [1] : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
