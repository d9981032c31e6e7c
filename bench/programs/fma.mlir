// d = a * b + c on 1024x1024 f32: two elementwise kernels that fuse into one.
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>)
    -> tensor<1024x1024xf32> {
  %ab = stablehlo.multiply %a, %b : tensor<1024x1024xf32> loc("fma.py":3:7)
  %d = stablehlo.add %ab, %c : tensor<1024x1024xf32> loc("fma.py":3:11)
  return %d : tensor<1024x1024xf32>
}
