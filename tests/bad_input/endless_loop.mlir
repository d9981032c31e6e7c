func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.while(%y = %x) : tensor<4xf32>
  cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %z = stablehlo.add %y, %y : tensor<4xf32>
    stablehlo.return %z : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
