// W6: one training step of the MLP in mlp.mlir: the gradient program of mlp_grad.mlir
// (mean squared error loss, as jax.value_and_grad lowers it), then an SGD update with
// learning rate 0.01; returns the loss and the updated w1, b1, w2, b2.
func.func @main(%x: tensor<256x784xf32>, %y: tensor<256x10xf32>, %w1: tensor<784x512xf32>,
                %b1: tensor<512xf32>, %w2: tensor<512x10xf32>, %b2: tensor<10xf32>)
    -> (tensor<f32>, tensor<784x512xf32>, tensor<512xf32>, tensor<512x10xf32>, tensor<10xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %zeros = stablehlo.constant dense<0.0> : tensor<256x512xf32>
  %inv_n = stablehlo.constant dense<3.906250e-04> : tensor<f32>
  %two_over_n = stablehlo.constant dense<7.812500e-04> : tensor<256x10xf32>
  // forward
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0]
      : (tensor<256x784xf32>, tensor<784x512xf32>) -> tensor<256x512xf32> loc("mlp.py":8:8)
  %b1b = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<512xf32>) -> tensor<256x512xf32> loc("mlp.py":8:8)
  %hb = stablehlo.add %h, %b1b : tensor<256x512xf32> loc("mlp.py":8:8)
  %a = stablehlo.maximum %hb, %zeros : tensor<256x512xf32> loc("mlp.py":9:8)
  %o = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0]
      : (tensor<256x512xf32>, tensor<512x10xf32>) -> tensor<256x10xf32> loc("mlp.py":10:11)
  %b2b = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<10xf32>) -> tensor<256x10xf32> loc("mlp.py":10:11)
  %out = stablehlo.add %o, %b2b : tensor<256x10xf32> loc("mlp.py":10:11)
  %d = stablehlo.subtract %out, %y : tensor<256x10xf32> loc("mlp.py":14:10)
  %d2 = stablehlo.multiply %d, %d : tensor<256x10xf32> loc("mlp.py":14:10)
  %sse = stablehlo.reduce(%d2 init: %zero) applies stablehlo.add across dimensions = [0, 1]
      : (tensor<256x10xf32>, tensor<f32>) -> tensor<f32> loc("mlp.py":14:10)
  %loss = stablehlo.multiply %sse, %inv_n : tensor<f32> loc("mlp.py":14:10)
  // backward
  %dout = stablehlo.multiply %d, %two_over_n : tensor<256x10xf32> loc("mlp.py":14:10)
  %dw2 = stablehlo.dot_general %a, %dout, contracting_dims = [0] x [0]
      : (tensor<256x512xf32>, tensor<256x10xf32>) -> tensor<512x10xf32> loc("mlp.py":10:11)
  %db2 = stablehlo.reduce(%dout init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<256x10xf32>, tensor<f32>) -> tensor<10xf32> loc("mlp.py":10:11)
  %da = stablehlo.dot_general %dout, %w2, contracting_dims = [1] x [1]
      : (tensor<256x10xf32>, tensor<512x10xf32>) -> tensor<256x512xf32> loc("mlp.py":10:11)
  %pos = stablehlo.compare GT, %hb, %zeros : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xi1> loc("mlp.py":9:8)
  %dh = stablehlo.select %pos, %da, %zeros : tensor<256x512xi1>, tensor<256x512xf32> loc("mlp.py":9:8)
  %dw1 = stablehlo.dot_general %x, %dh, contracting_dims = [0] x [0]
      : (tensor<256x784xf32>, tensor<256x512xf32>) -> tensor<784x512xf32> loc("mlp.py":8:8)
  %db1 = stablehlo.reduce(%dh init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32> loc("mlp.py":8:8)
  // SGD: p - 0.01 * g
  %lr1 = stablehlo.constant dense<0.01> : tensor<784x512xf32>
  %lrb1 = stablehlo.constant dense<0.01> : tensor<512xf32>
  %lr2 = stablehlo.constant dense<0.01> : tensor<512x10xf32>
  %lrb2 = stablehlo.constant dense<0.01> : tensor<10xf32>
  %s1 = stablehlo.multiply %dw1, %lr1 : tensor<784x512xf32>
  %nw1 = stablehlo.subtract %w1, %s1 : tensor<784x512xf32>
  %sb1 = stablehlo.multiply %db1, %lrb1 : tensor<512xf32>
  %nb1 = stablehlo.subtract %b1, %sb1 : tensor<512xf32>
  %s2 = stablehlo.multiply %dw2, %lr2 : tensor<512x10xf32>
  %nw2 = stablehlo.subtract %w2, %s2 : tensor<512x10xf32>
  %sb2 = stablehlo.multiply %db2, %lrb2 : tensor<10xf32>
  %nb2 = stablehlo.subtract %b2, %sb2 : tensor<10xf32>
  return %loss, %nw1, %nb1, %nw2, %nb2 : tensor<f32>, tensor<784x512xf32>, tensor<512xf32>, tensor<512x10xf32>, tensor<10xf32>
}
