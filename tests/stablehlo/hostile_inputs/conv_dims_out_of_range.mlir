func.func @f() attributes {d = #stablehlo.conv<[b, 7, f]x[0, i, o]->[b, 0, f]>} {
  return
}
