func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32> loc("model.py":4:7)
  return %0 : tensor<2xf32>
}
