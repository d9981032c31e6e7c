// Kernels that call runtime functions (a sort line, complex exp and division): their
// machine code, kept on disk, must run in another process (tests/tools/cli_test.sh).
func.func @main(%x: tensor<8x16xf32>, %z: tensor<16xcomplex<f32>>) -> (tensor<8x16xf32>, tensor<16xcomplex<f32>>) {
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %e = stablehlo.exponential %z : tensor<16xcomplex<f32>>
  %q = stablehlo.divide %e, %z : tensor<16xcomplex<f32>>
  return %s, %q : tensor<8x16xf32>, tensor<16xcomplex<f32>>
}
