func.func @f(%p: tensor<i1>) {
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
"stablehlo.if"(%p) ({
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
}, {
  stablehlo.return
}) : (tensor<i1>) -> ()
  stablehlo.return
  return
}
