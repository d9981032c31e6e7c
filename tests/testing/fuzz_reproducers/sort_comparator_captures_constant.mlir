// kiln fuzz seed 20123 (fixed): cpu threw "kernel IR does not verify: Basic Block in function
// 'kernel2_sort_line12_less' does not have terminator": CSE had merged the comparator's constant
// 0 with the function's, the comparator declined on the captured value, and its half-built
// function stayed in the module. (The comparator canonicalizes NaN and -0 as JAX does.)
// --seed 20123
module {
  func.func @main(%arg0: tensor<4x4x4xf16>) -> (tensor<4x4x1xf16>, tensor<64xf16>) {
    %0 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %1 = stablehlo.constant dense<false> : tensor<i1>
    %2 = "stablehlo.if"(%1) ({
      %3 = stablehlo.negate %arg0 : tensor<4x4x4xf16>
      stablehlo.return %3 : tensor<4x4x4xf16>
    }, {
      %3 = stablehlo.add %arg0, %arg0 : tensor<4x4x4xf16>
      stablehlo.return %3 : tensor<4x4x4xf16>
    }) : (tensor<i1>) -> tensor<4x4x4xf16>
    %3:2 = "stablehlo.sort"(%arg0, %2) <{dimension = 2 : i64, is_stable = true}> ({
      ^bb0(%arg1: tensor<f16>, %arg2: tensor<f16>, %arg3: tensor<f16>, %arg4: tensor<f16>):
      %4 = stablehlo.compare NE, %arg1, %arg1 : (tensor<f16>, tensor<f16>) -> tensor<i1>
      %5 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
      %6 = stablehlo.add %arg1, %5 : tensor<f16>
      %7 = stablehlo.constant dense<0x7E00> : tensor<f16>
      %8 = stablehlo.select %4, %7, %6 : tensor<i1>, tensor<f16>
      %9 = stablehlo.compare NE, %arg2, %arg2 : (tensor<f16>, tensor<f16>) -> tensor<i1>
      %10 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
      %11 = stablehlo.add %arg2, %10 : tensor<f16>
      %12 = stablehlo.constant dense<0x7E00> : tensor<f16>
      %13 = stablehlo.select %9, %12, %11 : tensor<i1>, tensor<f16>
      %14 = stablehlo.compare GT, %8, %13, TOTALORDER : (tensor<f16>, tensor<f16>) -> tensor<i1>
      stablehlo.return %14 : tensor<i1>
    }) : (tensor<4x4x4xf16>, tensor<4x4x4xf16>) -> (tensor<4x4x4xf16>, tensor<4x4x4xf16>)
    %4 = stablehlo.reshape %3#1 : (tensor<4x4x4xf16>) -> tensor<64xf16>
    %5 = stablehlo.constant dense<0.000000e+00> : tensor<4x4x1xf16>
    return %5, %4 : tensor<4x4x1xf16>, tensor<64xf16>
  }
}
