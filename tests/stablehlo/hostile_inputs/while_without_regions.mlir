func.func @f(%a: tensor<i32>) {
  %0 = stablehlo.while(%x = %a) : tensor<i32>
  return
}
