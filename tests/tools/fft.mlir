// An op with no native code on cpu (stablehlo.fft): kiln run and kiln bench still run it,
// through the interpreter, and say so.
func.func @main(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  %r = stablehlo.fft %x, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  return %r : tensor<8xcomplex<f32>>
}
