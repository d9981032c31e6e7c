// kiln fuzz seed 1793 (fixed): "jvp/vjp threw: stablehlo.multiply: operand 1 has type
// tensor<f64>, but operand 0 has tensor<complex<f64>>": remainder's jvp built real-only math for
// complex operands; the spec leaves complex remainder TBD, and the rule now refuses it
// ("unsupported: jvp of stablehlo.remainder (complex operands, ...)"), as JAX does.
// --seed 1793
module {
  func.func @main(%arg0: tensor<2xf16>, %arg1: tensor<complex<f32>>) -> tensor<1xcomplex<f32>> {
    %0 = stablehlo.constant dense<false> : tensor<i1>
    %1 = "stablehlo.if"(%0) ({
      %2 = stablehlo.remainder %arg1, %arg1 : tensor<complex<f32>>
      stablehlo.return %2 : tensor<complex<f32>>
    }, {
      %2 = stablehlo.power %arg1, %arg1 : tensor<complex<f32>>
      stablehlo.return %2 : tensor<complex<f32>>
    }) : (tensor<i1>) -> tensor<complex<f32>>
    %2 = stablehlo.reshape %arg1 : (tensor<complex<f32>>) -> tensor<1xcomplex<f32>>
    return %2 : tensor<1xcomplex<f32>>
  }
}
