func.func @f() {
  %0 = stablehlo.constant dense<"0x012"> : tensor<2xi8>
  return
}
