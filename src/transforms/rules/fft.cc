// Autodiff rules of stablehlo.fft. Every transform is linear (over the reals, for RFFT
// and IRFFT), so the tangent is the same transform of the operand's tangent. The
// transposes keep the pairing <a, b> = Re(Σ a·b) of the other rules (no conjugation, as
// in JAX, jax/_src/lax/fft.py):
// - the DFT matrix is symmetric, so FFT and IFFT (scaling included) are their own
//   transposes;
// - RFFT is the FFT of the real operand cut to its n/2 + 1 first coefficients, so its
//   transpose pads the cotangent back to n with zeros, runs the FFT and keeps the real
//   part;
// - IRFFT reads every coefficient but the first (and, for an even n, the last) twice,
//   through the conjugate mirror, takes the real part and scales by 1/Π lengths, so its
//   transpose is the conjugate of the RFFT of the cotangent, scaled so and doubled at
//   those coefficients (JAX's _irfft_transpose).
// Batching: fft transforms its trailing dimensions only, so the batch in front is one
// more leading dimension it leaves alone.
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

namespace O = ops;

FftType typeOf(const Op& op) { return fftTypeOf(op.attr("fft_type")); }
Dims lengthsOf(const Op& op) { return op.attr("fft_length").asInts(); }

std::vector<Value*> fftJvp(JvpArgs& a) {
  if (!a.t[0]) return {nullptr};
  return {a.b.fft(a.t[0], typeOf(a.op), lengthsOf(a.op))};
}

Value* rfftTranspose(Builder& b, Value* ct, const Dims& lengths) {
  const Type& type = ct->type();
  const size_t rank = static_cast<size_t>(type.rank());
  Dims low(rank, 0), high(rank, 0), interior(rank, 0);
  high.back() = lengths.back() - type.shape().back();
  Value* full = b.pad(ct, zeros(b, Type::scalar(type.dtype())), low, high, interior);
  return b.unary(O::Real, b.fft(full, FftType::Fft, lengths));
}

Value* irfftTranspose(Builder& b, Value* ct, const Dims& lengths) {
  Value* spectrum = b.fft(ct, FftType::Rfft, lengths);
  const Type& type = spectrum->type();
  const int64_t half = type.shape().back();
  const int64_t n = lengths.back();
  int64_t count = 1;
  for (int64_t l : lengths) count *= l;
  const double scale = count == 0 ? 0 : 1.0 / static_cast<double>(count);
  Literal weights(Type::tensor(type.dtype(), {half}));
  for (int64_t k = 0; k < half; ++k) {
    bool once = k == 0 || (n % 2 == 0 && k == half - 1);
    weights.setComplex(k, {(once ? 1 : 2) * scale, 0});
  }
  Value* w = b.broadcastInDim(b.constant(weights), type.shape(), {type.rank() - 1});
  return conjugate(b, b.binary(O::Multiply, spectrum, w));
}

std::vector<Value*> fftTranspose(TransposeArgs& a) {
  const Dims lengths = lengthsOf(a.op);
  switch (typeOf(a.op)) {
    case FftType::Fft: return {a.b.fft(a.ct[0], FftType::Fft, lengths)};
    case FftType::Ifft: return {a.b.fft(a.ct[0], FftType::Ifft, lengths)};
    case FftType::Rfft: return {rfftTranspose(a.b, a.ct[0], lengths)};
    case FftType::Irfft: return {irfftTranspose(a.b, a.ct[0], lengths)};
  }
  unsupportedRule(a.op, "transpose", "an unknown fft_type");
}

std::vector<Value*> fftBatch(BatchArgs& a) { return {a.b.fft(a.x[0], typeOf(a.op), lengthsOf(a.op))}; }

}  // namespace

void addFftRules(OpTable<OpRules>& t) { t[O::Fft] = {&fftJvp, &fftTranspose, nullptr, &fftBatch}; }

}  // namespace kiln::transforms
