// A loss with kiln's autodiff constructs, for the CLI's tests: every backend runs it, and
// `kiln grad --has-aux` differentiates the loss and returns the activations unchanged.
// loss(w, x) = sum(a · stop_gradient(a)), a = f(checkpoint(x·w)), f = tanh with a jvp
// rule of its own.
func.func private @f(%h: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %t = stablehlo.tanh %h : tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}
func.func private @f_jvp(%h: tensor<4x2xf32>, %dh: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %t = stablehlo.tanh %h : tensor<4x2xf32>
  %half = stablehlo.constant dense<0.5> : tensor<4x2xf32>
  %d = stablehlo.multiply %dh, %half : tensor<4x2xf32>
  return %t, %d : tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @main(%w: tensor<3x2xf32>, %x: tensor<4x3xf32>) -> (tensor<f32>, tensor<4x2xf32>) {
  %h = "kiln.checkpoint"(%x, %w) ({
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<3x2xf32>):
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    stablehlo.return %d : tensor<4x2xf32>
  }) {policy = "nothing_saveable"} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %a = "kiln.custom_jvp"(%h) {primal = @f, jvp = @f_jvp} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %s = "kiln.stop_gradient"(%a) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %q = stablehlo.multiply %a, %s : tensor<4x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %l = stablehlo.reduce(%q init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x2xf32>, tensor<f32>) -> tensor<f32>
  return %l, %a : tensor<f32>, tensor<4x2xf32>
}
