// An MHLO-era export: @main takes a nested tuple and returns one, as PyTorch-based
// compilers wrote their ResNet graphs. kiln's plugins flatten both into leaves.
module @tuple_main {
  func.func @main(%arg0: tuple<tensor<4x3xf32>, tuple<tensor<3xf32>, tensor<i32>>>) -> tuple<tensor<4x3xf32>, tuple<tensor<f32>, tensor<i32>>> {
    %x = "mhlo.get_tuple_element"(%arg0) {index = 0 : i32} : (tuple<tensor<4x3xf32>, tuple<tensor<3xf32>, tensor<i32>>>) -> tensor<4x3xf32>
    %inner = "mhlo.get_tuple_element"(%arg0) {index = 1 : i32} : (tuple<tensor<4x3xf32>, tuple<tensor<3xf32>, tensor<i32>>>) -> tuple<tensor<3xf32>, tensor<i32>>
    %b = "mhlo.get_tuple_element"(%inner) {index = 0 : i32} : (tuple<tensor<3xf32>, tensor<i32>>) -> tensor<3xf32>
    %n = "mhlo.get_tuple_element"(%inner) {index = 1 : i32} : (tuple<tensor<3xf32>, tensor<i32>>) -> tensor<i32>
    %bb = "mhlo.broadcast_in_dim"(%b) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<3xf32>) -> tensor<4x3xf32>
    %y = "mhlo.add"(%x, %bb) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %t = "mhlo.tanh"(%y) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %zero = "mhlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %s = "mhlo.reduce"(%t, %zero) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %r = "mhlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "mhlo.return"(%r) : (tensor<f32>) -> ()
    }) {dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<4x3xf32>, tensor<f32>) -> tensor<f32>
    %one = "mhlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %m = "mhlo.add"(%n, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %pair = "mhlo.tuple"(%s, %m) : (tensor<f32>, tensor<i32>) -> tuple<tensor<f32>, tensor<i32>>
    %out = "mhlo.tuple"(%t, %pair) : (tensor<4x3xf32>, tuple<tensor<f32>, tensor<i32>>) -> tuple<tensor<4x3xf32>, tuple<tensor<f32>, tensor<i32>>>
    "func.return"(%out) : (tuple<tensor<4x3xf32>, tuple<tensor<f32>, tensor<i32>>>) -> ()
  }
}
