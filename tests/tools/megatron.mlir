// A Megatron-style MLP over 2 devices: w1 split by columns, w2 by rows (kiln run/compile --partition).
module @tp attributes {mhlo.num_partitions = 2 : i32} {
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{replicated}"}, %w1: tensor<4x8xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}"},
                %w2: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{replicated}"}) {
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<8x8xf32>
  %a = stablehlo.maximum %h, %zero : tensor<8x8xf32>
  %y = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
}
