// The cpu backend declines a sort whose comparator reads a parameter of the function (it
// compiles comparators to scalar code of their own arguments and constants): the op runs
// on the interpreter, and the comparator half-built for it must not stay in the module.
// --seed 1
module {
  func.func @main(%x: tensor<3x5xf32>, %pivot: tensor<f32>) -> tensor<3x5xf32> {
    %0 = "stablehlo.sort"(%x) <{dimension = 1 : i64, is_stable = true}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %da = stablehlo.subtract %a, %pivot : tensor<f32>
      %db = stablehlo.subtract %b, %pivot : tensor<f32>
      %aa = stablehlo.abs %da : tensor<f32>
      %ab = stablehlo.abs %db : tensor<f32>
      %lt = stablehlo.compare LT, %aa, %ab, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    return %0 : tensor<3x5xf32>
  }
}
