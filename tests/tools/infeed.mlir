// kiln run --infeed's test program: its input plus a value from the device's infeed.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %t = stablehlo.after_all : !stablehlo.token
  %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2x3xf32>, !stablehlo.token)
  %sum = stablehlo.add %a, %v#0 : tensor<2x3xf32>
  return %sum : tensor<2x3xf32>
}
// A run_parallel with an infeed list reads the list, not the device's infeed.
func.func @from_list() -> tensor<2xi64> {
  %token = stablehlo.after_all : !stablehlo.token
  %r:2 = "interpreter.run_parallel"(%token) {infeed = [@queued], programs = [[@take]]}
      : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return %r#0 : tensor<2xi64>
}
func.func @take(%t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {
  %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return %v#0, %v#1 : tensor<2xi64>, !stablehlo.token
}
func.func @queued() -> tensor<2xi64> {
  %c = stablehlo.constant dense<[7, 9]> : tensor<2xi64>
  return %c : tensor<2xi64>
}
