func.func @f() {
  %0 = stablehlo.constant dense<0x7FC000000> : tensor<f32>
  return
}
