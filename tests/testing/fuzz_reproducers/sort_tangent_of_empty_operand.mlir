// kiln fuzz seed 245 (fixed): "jvp/vjp threw: stablehlo.gather: slice_sizes [1, 1] must lie within
// the operand shape [2, 0]": sort's tangent gathered 1-element slices of an empty operand.
// --seed 245
module {
  func.func @main(%arg0: tensor<4xf64>, %arg1: tensor<f32>, %arg2: tensor<2x0xbf16>) -> (tensor<3x1xbf16>, tensor<1x0xbf16>) {
    %0 = "stablehlo.sort"(%arg2) <{dimension = 0 : i64, is_stable = true}> ({
      ^bb0(%arg3: tensor<bf16>, %arg4: tensor<bf16>):
      %1 = stablehlo.compare GT, %arg3, %arg4, TOTALORDER : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<2x0xbf16>) -> tensor<2x0xbf16>
    %1 = stablehlo.constant dense<> : tensor<1x0xbf16>
    %2 = stablehlo.constant dense<0.000000e+00> : tensor<3x1xbf16>
    return %2, %1 : tensor<3x1xbf16>, tensor<1x0xbf16>
  }
}
