// A two-layer MLP forward pass on a batch of 256 MNIST-sized inputs:
// logits = relu(x @ w1 + b1) @ w2 + b2.
func.func @main(%x: tensor<256x784xf32>, %w1: tensor<784x512xf32>, %b1: tensor<512xf32>,
                %w2: tensor<512x10xf32>, %b2: tensor<10xf32>) -> tensor<256x10xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<256x512xf32>
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0]
      : (tensor<256x784xf32>, tensor<784x512xf32>) -> tensor<256x512xf32> loc("mlp.py":8:8)
  %b1b = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<512xf32>) -> tensor<256x512xf32> loc("mlp.py":8:8)
  %hb = stablehlo.add %h, %b1b : tensor<256x512xf32> loc("mlp.py":8:8)
  %a = stablehlo.maximum %hb, %zero : tensor<256x512xf32> loc("mlp.py":9:8)
  %o = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0]
      : (tensor<256x512xf32>, tensor<512x10xf32>) -> tensor<256x10xf32> loc("mlp.py":10:11)
  %b2b = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<10xf32>) -> tensor<256x10xf32> loc("mlp.py":10:11)
  %logits = stablehlo.add %o, %b2b : tensor<256x10xf32> loc("mlp.py":10:11)
  return %logits : tensor<256x10xf32>
}
