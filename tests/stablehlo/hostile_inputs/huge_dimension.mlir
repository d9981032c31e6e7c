func.func @f(%a: tensor<99999999999999999999999x2xf32>) {
  return
}
