"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<2xf32>):
    "func.return"(%arg0) : (tensor<2xf32>) -> ()
