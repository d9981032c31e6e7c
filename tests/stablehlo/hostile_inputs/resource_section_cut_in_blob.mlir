func.func @main() -> tensor<2xf32> {
  %0 = stablehlo.constant dense_resource<w> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000080