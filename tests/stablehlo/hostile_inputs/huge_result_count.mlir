func.func @f() {
  %0:99999999999 = stablehlo.constant dense<1.0> : tensor<f32>
  return
}
