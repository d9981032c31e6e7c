// kiln run's test program: two inputs, two results.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i1>) {
  %0 = stablehlo.add %a, %b : tensor<2x3xf32>
  %t = stablehlo.constant dense<true> : tensor<i1>
  return %0, %t : tensor<2x3xf32>, tensor<i1>
}
func.func @twice(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %a, %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
