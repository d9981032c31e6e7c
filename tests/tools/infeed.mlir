// kiln run --infeed's test program: its input plus a value from the device's infeed.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %t = stablehlo.after_all : !stablehlo.token
  %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2x3xf32>, !stablehlo.token)
  %sum = stablehlo.add %a, %v#0 : tensor<2x3xf32>
  return %sum : tensor<2x3xf32>
}
