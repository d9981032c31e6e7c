// The Megatron MLP of tests/tools/megatron.mlir after a long loop: run by one rank of
// mpi_cli_test.sh, it reaches the all_reduce long after the others (or never).
module @slow {
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{replicated}"}, %w1: tensor<4x8xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}"},
                %w2: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{replicated}"}) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %n = stablehlo.constant dense<1000000000> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i64>, tensor<8x4xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %j = stablehlo.add %i, %one : tensor<i64>
    %a = stablehlo.sine %acc : tensor<8x4xf32>
    stablehlo.return %j, %a : tensor<i64>, tensor<8x4xf32>
  }
  %h = stablehlo.dot_general %r#1, %w1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %y = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
}
