func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = func.call @nowhere(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
