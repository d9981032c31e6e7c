// W1: d = a*b + c on 2^24 f32 (bench/compare.sh): pure bandwidth, 16 bytes per element.
func.func @main(%a: tensor<16777216xf32>, %b: tensor<16777216xf32>, %c: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %p = stablehlo.multiply %a, %b : tensor<16777216xf32>
  %d = stablehlo.add %p, %c : tensor<16777216xf32>
  return %d : tensor<16777216xf32>
}
