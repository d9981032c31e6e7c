// Kernels: random numbers. rng_bit_generator reproduces XLA's expansion bit for bit
// (kernels/random_bits.h, shared with the cpu backend). rng is implementation-defined;
// it follows IREE's lowering (a per-index LCG for UNIFORM, Box-Muller over a fixed
// mt19937 stream for NORMAL), which the IREE conformance files check.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "interp/kernels.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "kernels/random_bits.h"

namespace kiln::interp {
namespace {

// ---- rng_bit_generator ----------------------------------------------------------------------

// The generators are the cpu backend's too (kernels/random_bits.h).
HostValues rngBitGenerator(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& initial = v[0].tensor();
  const Type& outType = op.result(1)->type();
  std::optional<kernels::RngBitsLayout> layout =
      kernels::RngBitsLayout::of(rngAlgorithmOf(op.attr("rng_algorithm")), initial.type(), outType);
  if (!layout) unsupportedOp(op, "elements other than 8, 16, 32 or 64 bits wide");
  if (std::optional<std::string> problem = kernels::rngStateProblem(*layout))
    runtimeError(op, *problem + ", got " + initial.type().str());
  Literal state = initial;  // (dense: a splat's storage holds one element)
  const std::vector<uint64_t> words = kernels::rngStateWords(*layout, state.mutableStorage());
  Literal out(outType);
  kernels::rngDraw(*layout, words, out.mutableStorage(), 0, kernels::rngDraws(*layout));
  kernels::rngWriteState(*layout, kernels::rngAdvance(*layout, words), state.mutableStorage());
  return {std::move(state), std::move(out)};
}

// ---- rng ----------------------------------------------------------------------------------

// The largest value of the float format `t` below `hi` (a value of that format), as bits.
uint64_t bitsBelow(const Literal& hi, DType t) {
  double value = hi.floatAt(0);
  uint64_t bits = hi.bitsAt(0);
  if (value > 0) return bits - 1;
  if (value < 0) return bits + 1;
  return (uint64_t{1} << (bitWidth(t) - 1)) | 1;  // -0 and +0: the negative smallest subnormal
}

// UNIFORM: IREE's lowering hashes the multi-index with the LCG x -> x * 1103515245 + 12345
// (t = (t + index[d]) * a + c over the dimensions, in 32 bits) and scales t / 2^32 into
// [a, b); a value that rounds up to b becomes the one below it, keeping the interval
// half-open as the spec asks. Integers take a + t mod (b - a).
HostValues rngUniform(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& a = v[0].tensor();
  const Literal& b = v[1].tensor();
  Literal out(op.result(0)->type());
  const Shape& shape = out.shape();
  std::vector<int64_t> index(shape.size(), 0);
  int64_t n = out.numElements();
  auto hash = [&] {
    uint32_t t = 0;
    for (int64_t i : index) t = (static_cast<uint32_t>(i) + t) * 1103515245u + 12345u;
    return t;
  };
  DType t = out.dtype();
  if (isFloat(t)) {
    bool clamp = a.floatAt(0) < b.floatAt(0);
    uint64_t below = clamp ? bitsBelow(b, t) : 0;
    visitDType(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<T>) {
        T lo = Reader<T>(a)[0], hi = Reader<T>(b)[0];
        T scale = (hi - lo) * static_cast<T>(2.3283064E-10);
        Writer<T> w(out);
        for (int64_t i = 0; i < n; ++i, nextIndex(index, shape)) {
          w.set(i, static_cast<T>(hash()) * scale + lo);
          if (clamp && out.floatAt(i) >= b.floatAt(0)) out.setBits(i, below);
        }
      }
    });
  } else {
    bool isSigned = isSignedInt(t);
    uint64_t lo = isSigned ? static_cast<uint64_t>(a.intAt(0)) : a.uintAt(0);
    uint64_t hi = isSigned ? static_cast<uint64_t>(b.intAt(0)) : b.uintAt(0);
    uint64_t range = hi - lo;  // b - a, exact for a < b
    for (int64_t i = 0; i < n; ++i, nextIndex(index, shape)) {
      uint64_t offset = range == 0 ? 0 : hash() % range;
      out.setInt(i, static_cast<int64_t>(lo + offset));
    }
  }
  return {out};
}

// libstdc++'s and libc++'s generate_canonical<double, 53> on a 32-bit engine: two
// draws, low word first, scaled by 2^-64 and kept below 1.
double canonical(std::mt19937& engine) {
  double low = static_cast<double>(engine());
  double high = static_cast<double>(engine());
  double r = (low + high * 4294967296.0) / 18446744073709551616.0;
  return r >= 1.0 ? std::nextafter(1.0, 0.0) : r;
}

// NORMAL: IREE's lowering draws Box-Muller pairs from std::mt19937 seeded with 0 (the
// same numbers for every op), taking the cosine halves first, then the sine halves.
HostValues rngNormal(const Op& op, const HostValues& v, EvalContext&) {
  Literal out(op.result(0)->type());
  int64_t n = out.numElements();
  int64_t pairs = (n + 1) / 2;
  std::mt19937 engine(0);
  std::vector<float> radius(static_cast<size_t>(pairs)), cosine(radius.size()), sine(radius.size());
  const float twoPi = static_cast<float>(2.0 * std::numbers::pi);
  for (size_t i = 0; i < radius.size(); ++i) {
    float u1, u2;
    do {
      u1 = static_cast<float>(canonical(engine));
      u2 = static_cast<float>(canonical(engine));
    } while (u1 <= std::numeric_limits<float>::epsilon());
    radius[i] = static_cast<float>(-2.0 * std::log(static_cast<double>(u1)));
    cosine[i] = std::cos(twoPi * u2);
    sine[i] = std::sin(twoPi * u2);
  }
  visitDType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      T mu = Reader<T>(v[0].tensor())[0], sigma = Reader<T>(v[1].tensor())[0];
      Writer<T> w(out);
      for (int64_t i = 0; i < n; ++i) {
        size_t k = static_cast<size_t>(i < pairs ? i : i - pairs);
        T mag = sigma * std::sqrt(static_cast<T>(radius[k]));
        w.set(i, mag * static_cast<T>(i < pairs ? cosine[k] : sine[k]) + mu);
      }
    }
  });
  return {out};
}

HostValues rng(const Op& op, const HostValues& v, EvalContext& ctx) {
  if (rngDistributionOf(op.attr("rng_distribution")) == RngDistribution::Normal)
    return rngNormal(op, v, ctx);
  return rngUniform(op, v, ctx);
}

}  // namespace

void addRandomKernels(KernelTable& t) {
  t.set(ops::RngBitGenerator, &rngBitGenerator);
  t.set(ops::Rng, &rng);
}

}  // namespace kiln::interp
