func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.add %x, %w : tensor<2xf32>
  return %y : tensor<2xf32>
}
