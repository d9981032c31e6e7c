func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %yÿ = stablehlo.add %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
