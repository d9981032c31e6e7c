func.func @f() {
  %0 = stablehlo.constant dense<-1> : tensor<ui8>
  return
}
