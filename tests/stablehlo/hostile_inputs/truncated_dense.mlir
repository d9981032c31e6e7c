func.func @f() {
  %0 = stablehlo.constant dense<[1, 2