func.func @f() {
  %0 = stablehlo.constant dense<"0x0102