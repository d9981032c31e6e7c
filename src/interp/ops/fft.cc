// Kernel: fft (FFT, IFFT, RFFT, IRFFT over the last size(fft_length) dimensions). Each
// 1-D transform runs in long double, then rounds once to the result type: radix-2 for
// power-of-two lengths (its butterflies cancel exactly where the spectrum is exactly
// zero, e.g. for periodic inputs), a direct DFT otherwise.
#include <cmath>
#include <numbers>

#include "interp/ops/linalg.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

using C = std::complex<long double>;

// cos and sin of 2π j / n, from an angle reduced to [0, π/4] by octant symmetry so that
// multiples of π/2 give exact zeros and ones (a stray 1e-19 would flip a zero's sign).
std::pair<long double, long double> cosSin(int64_t j, int64_t n) {
  const long double quarterPi = std::numbers::pi_v<long double> / 4;
  const int64_t eighths = 8 * j;
  const int64_t octant = eighths / n, r = eighths % n;
  const long double x = quarterPi * static_cast<long double>(r) / static_cast<long double>(n);
  const long double y = quarterPi * static_cast<long double>(n - r) / static_cast<long double>(n);
  switch (octant) {
    case 0: return {std::cos(x), std::sin(x)};
    case 1: return {std::sin(y), std::cos(y)};
    case 2: return {-std::sin(x), std::cos(x)};
    case 3: return {-std::cos(y), std::sin(y)};
    case 4: return {-std::cos(x), -std::sin(x)};
    case 5: return {-std::sin(y), -std::cos(y)};
    case 6: return {std::sin(x), -std::cos(x)};
    default: return {std::cos(y), -std::sin(y)};
  }
}

// exp(-2πi j / n) for j in [0, n) (the conjugates for the inverse transform).
std::vector<C> twiddles(int64_t n, bool inverse) {
  std::vector<C> w(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    auto [c, s] = cosSin(j, n);
    w[static_cast<size_t>(j)] = C(c, inverse ? s : -s);
  }
  return w;
}

// In-place iterative radix-2 transform of x (size a power of two), unscaled.
void radix2(std::vector<C>& x, const std::vector<C>& w) {
  const size_t n = x.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t stride = n / len;
    for (size_t i = 0; i < n; i += len)
      for (size_t k = 0; k < len / 2; ++k) {
        C u = x[i + k], t = x[i + k + len / 2] * w[k * stride];
        x[i + k] = u + t;
        x[i + k + len / 2] = u - t;
      }
  }
}

// The unscaled DFT of x with twiddles w.
void dft(std::vector<C>& x, const std::vector<C>& w, std::vector<C>& scratch) {
  const size_t n = x.size();
  if (n > 1 && (n & (n - 1)) == 0) return radix2(x, w);
  scratch.assign(n, C(0));
  for (size_t k = 0; k < n; ++k) {
    C acc(0);
    for (size_t t = 0; t < n; ++t) acc += x[t] * w[(t * k) % n];
    scratch[k] = acc;
  }
  x.swap(scratch);
}

// Transforms every line along `axis` of a row-major buffer of `shape`.
void transformAxis(std::vector<C>& buf, const Shape& shape, size_t axis, bool inverse, EvalContext& ctx) {
  const int64_t n = shape[axis];
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  if (n == 0 || outer * inner == 0) return;
  std::vector<C> w = twiddles(n, inverse), line(static_cast<size_t>(n)), scratch;
  const long double scale = inverse ? 1.0L / static_cast<long double>(n) : 1.0L;
  for (int64_t o = 0; o < outer; ++o) {
    ctx.checkTime();
    for (int64_t i = 0; i < inner; ++i) {
      C* base = buf.data() + o * n * inner + i;
      for (int64_t t = 0; t < n; ++t) line[static_cast<size_t>(t)] = base[t * inner];
      line.resize(static_cast<size_t>(n));
      dft(line, w, scratch);
      for (int64_t t = 0; t < n; ++t) base[t * inner] = line[static_cast<size_t>(t)] * scale;
    }
  }
}

// Keeps the first `keep` elements of the last dimension (RFFT's n/2 + 1).
std::vector<C> truncateLast(const std::vector<C>& buf, Shape& shape, int64_t keep) {
  const int64_t n = shape.back();
  const int64_t lines = n == 0 ? 0 : static_cast<int64_t>(buf.size()) / n;
  std::vector<C> out;
  for (int64_t l = 0; l < lines; ++l)
    out.insert(out.end(), buf.begin() + l * n, buf.begin() + l * n + keep);
  shape.back() = keep;
  return out;
}

// IRFFT's last step: each line of n/2 + 1 coefficients is the half spectrum of a real
// signal of length n (the rest is its conjugate mirror); returns the n real samples.
std::vector<C> inverseRealLast(const std::vector<C>& buf, Shape& shape, int64_t n, EvalContext& ctx) {
  const int64_t half = shape.back();
  const int64_t lines = half == 0 ? 0 : static_cast<int64_t>(buf.size()) / half;
  shape.back() = n;
  std::vector<C> out(static_cast<size_t>(lines * n));
  if (n == 0) return out;
  std::vector<C> w = twiddles(n, true), line(static_cast<size_t>(n)), scratch;
  for (int64_t l = 0; l < lines; ++l) {
    ctx.checkTime();
    const C* in = buf.data() + l * half;
    for (int64_t k = 0; k < n; ++k)
      line[static_cast<size_t>(k)] = k < half ? in[k] : std::conj(in[n - k]);
    line.resize(static_cast<size_t>(n));
    dft(line, w, scratch);
    for (int64_t t = 0; t < n; ++t)
      out[static_cast<size_t>(l * n + t)] = C(line[static_cast<size_t>(t)].real() / static_cast<long double>(n), 0);
  }
  return out;
}

HostValues fft(const Op& op, const HostValues& v, EvalContext& ctx) {
  const Literal& operand = v[0].tensor();
  const FftType type = fftTypeOf(op.attr("fft_type"));
  std::vector<int64_t> lengths = op.attr("fft_length").asInts();
  const size_t rank = operand.shape().size(), L = lengths.size();

  Shape shape = operand.shape();
  std::vector<C> buf = packAs<C>(operand, [&] {
    std::vector<int64_t> identity;
    for (size_t d = 0; d < rank; ++d) identity.push_back(static_cast<int64_t>(d));
    return identity;
  }());
  if (type == FftType::Fft) {
    for (size_t a = rank; a-- > rank - L;) transformAxis(buf, shape, a, false, ctx);
  } else if (type == FftType::Ifft) {
    for (size_t a = rank - L; a < rank; ++a) transformAxis(buf, shape, a, true, ctx);
  } else if (type == FftType::Rfft) {
    transformAxis(buf, shape, rank - 1, false, ctx);
    buf = truncateLast(buf, shape, shape.back() == 0 ? 0 : shape.back() / 2 + 1);
    for (size_t a = rank - 1; a-- > rank - L;) transformAxis(buf, shape, a, false, ctx);
  } else {  // IRFFT
    for (size_t a = rank - L; a < rank - 1; ++a) transformAxis(buf, shape, a, true, ctx);
    buf = inverseRealLast(buf, shape, lengths.back(), ctx);
  }

  Literal out(op.result(0)->type());
  visitDType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Writer<T> w(out);
    for (size_t i = 0; i < buf.size(); ++i) w.set(static_cast<int64_t>(i), convertElement<T>(buf[i]));
  });
  return {out};
}

}  // namespace

void addFftKernels(KernelTable& t) { t.set(ops::Fft, &fft); }

}  // namespace kiln::interp
