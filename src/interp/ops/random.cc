// Kernels: random numbers. rng_bit_generator reproduces XLA's expansion bit for bit
// (Threefry-2x32 with 20 rounds and Philox-4x32-10, DEFAULT being Philox as on XLA's CPU
// and GPU backends), so JAX-generated expectations hold. rng is implementation-defined;
// it follows IREE's lowering (a per-index LCG for UNIFORM, Box-Muller over a fixed
// mt19937 stream for NORMAL), which the IREE conformance files check.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "ir/attr_records.h"
#include "interp/kernels.h"

namespace kiln::interp {
namespace {

// ---- the two generators -------------------------------------------------------------------

uint32_t lo32(uint64_t v) {
  return static_cast<uint32_t>(v);
}
uint32_t hi32(uint64_t v) {
  return static_cast<uint32_t>(v >> 32);
}
uint64_t join32(uint32_t lo, uint32_t hi) {
  return uint64_t{lo} | (uint64_t{hi} << 32);
}
uint32_t rotl32(uint32_t v, int d) {
  return (v << d) | (v >> (32 - d));
}

// Threefry-2x32, 20 rounds, as Salmon et al. and XLA's prng.cc define it.
std::array<uint32_t, 2> threeFry2x32(uint64_t counter, uint64_t key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  uint32_t ks[3] = {lo32(key), hi32(key), 0x1BD11BDA};
  ks[2] ^= ks[0] ^ ks[1];
  uint32_t x0 = lo32(counter) + ks[0];
  uint32_t x1 = hi32(counter) + ks[1];
  for (int block = 0; block < 5; ++block) {
    const int* rot = kRotations + (block % 2) * 4;
    for (int r = 0; r < 4; ++r) {
      x0 += x1;
      x1 = rotl32(x1, rot[r]) ^ x0;
    }
    // Key injection after every four rounds.
    x0 += ks[(block + 1) % 3];
    x1 += ks[(block + 2) % 3] + static_cast<uint32_t>(block + 1);
  }
  return {x0, x1};
}

// A 128-bit counter as two 64-bit halves.
struct U128 {
  uint64_t lo = 0;
  uint64_t hi = 0;
  U128 plus(uint64_t n) const { return {lo + n, lo + n < lo ? hi + 1 : hi}; }
};

// Philox-4x32 with 10 rounds.
std::array<uint32_t, 4> philox4x32(U128 counter, uint64_t key) {
  uint32_t x[4] = {lo32(counter.lo), hi32(counter.lo), lo32(counter.hi), hi32(counter.hi)};
  uint32_t k0 = lo32(key), k1 = hi32(key);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t{x[0]} * 0xD2511F53u;
    uint64_t p1 = uint64_t{x[2]} * 0xCD9E8D57u;
    uint32_t next[4] = {hi32(p1) ^ x[1] ^ k0, lo32(p1), hi32(p0) ^ x[3] ^ k1, lo32(p0)};
    std::copy(next, next + 4, x);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {x[0], x[1], x[2], x[3]};
}

// ---- rng_bit_generator ----------------------------------------------------------------------

// The state as 64-bit words. The spec's state is ui64; narrower integer states are
// packed little-endian, element 0 in the low bits. The one narrow state with a
// reference is IREE's tensor<4xi32>, whose lowering reads the counter (word 1) with its
// halves swapped, elements 2 and 3 as (high, low), yet writes the new counter back
// little-endian; its conformance files check the outputs this reading gives.
std::vector<uint64_t> stateWords(const Literal& state) {
  int width = bitWidth(state.dtype());
  int perWord = 64 / width;
  std::vector<uint64_t> words(static_cast<size_t>((state.numElements() + perWord - 1) / perWord));
  uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  for (int64_t i = 0; i < state.numElements(); ++i)
    words[static_cast<size_t>(i / perWord)] |= (state.bitsAt(i) & mask) << ((i % perWord) * width);
  if (width == 32 && state.numElements() == 4) words[1] = (words[1] << 32) | (words[1] >> 32);
  return words;
}

Literal fromStateWords(const std::vector<uint64_t>& words, const Type& type) {
  Literal state(type);
  int width = bitWidth(type.dtype());
  int perWord = 64 / width;
  uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  for (int64_t i = 0; i < state.numElements(); ++i)
    state.setBits(i, (words[static_cast<size_t>(i / perWord)] >> ((i % perWord) * width)) & mask);
  return state;
}

// Threefry of an output of 32 bits or fewer: XLA draws one pair of words per two
// outputs, pairing neighbours along the first even dimension (else the first largest),
// so that dimension's index i takes word i % 2 of the draw at index i / 2.
uint64_t threeFryNarrow(Literal& out, uint64_t key, uint64_t counter, uint64_t mask) {
  const Shape& shape = out.shape();
  if (shape.empty()) {
    out.setBits(0, threeFry2x32(counter, key)[0] & mask);
    return counter + 1;
  }
  size_t split = shape.size();
  for (size_t d = 0; d < shape.size() && split == shape.size(); ++d)
    if (shape[d] % 2 == 0) split = d;
  if (split == shape.size()) {
    split = 0;
    for (size_t d = 1; d < shape.size(); ++d)
      if (shape[d] > shape[split]) split = d;
  }
  Shape half = shape;
  half[split] = (shape[split] + 1) / 2;
  int64_t draws = Type::tensor(out.dtype(), half).numElements();
  std::vector<int64_t> strides = stridesOf(shape);
  std::vector<int64_t> index;
  for (int64_t h = 0; h < draws; ++h) {
    unravel(h, half, index);
    std::array<uint32_t, 2> words = threeFry2x32(counter + static_cast<uint64_t>(h), key);
    for (int64_t j = 0; j < 2; ++j) {
      std::vector<int64_t> at = index;
      at[split] = 2 * index[split] + j;
      if (at[split] < shape[split])
        out.setBits(ravel(at, strides), words[static_cast<size_t>(j)] & mask);
    }
  }
  return counter + static_cast<uint64_t>(draws);
}

// THREE_FRY: the key is word 0 and the counter word 1.
void threeFry(std::vector<uint64_t>& state, Literal& out) {
  uint64_t key = state[0], counter = state[1];
  int width = bitWidth(out.dtype());
  int64_t n = out.numElements();
  if (width == 64) {
    for (int64_t i = 0; i < n; ++i) {
      std::array<uint32_t, 2> w = threeFry2x32(counter + static_cast<uint64_t>(i), key);
      out.setBits(i, join32(w[0], w[1]));
    }
    state[1] = counter + static_cast<uint64_t>(n);
  } else {
    state[1] = threeFryNarrow(out, key, counter, (uint64_t{1} << width) - 1);
  }
}

// PHILOX: the key is word 0; the 128-bit counter is words 1..2, or with a two-word state
// word 1 under word 0 (XLA reverses the state). Each draw gives four 32-bit outputs or
// two 64-bit ones, laid out in draw order.
void philox(std::vector<uint64_t>& state, Literal& out) {
  uint64_t key = state[0];
  U128 counter = state.size() >= 3 ? U128{state[1], state[2]} : U128{state[1], state[0]};
  int width = bitWidth(out.dtype());
  int64_t n = out.numElements();
  int64_t perDraw = width == 64 ? 2 : 4;
  int64_t draws = (n + perDraw - 1) / perDraw;
  uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  for (int64_t d = 0; d < draws; ++d) {
    std::array<uint32_t, 4> w = philox4x32(counter.plus(static_cast<uint64_t>(d)), key);
    for (int64_t j = 0; j < perDraw && d * perDraw + j < n; ++j) {
      uint64_t bits = width == 64
                          ? join32(w[static_cast<size_t>(2 * j)], w[static_cast<size_t>(2 * j + 1)])
                          : w[static_cast<size_t>(j)];
      out.setBits(d * perDraw + j, bits & mask);
    }
  }
  U128 next = counter.plus(static_cast<uint64_t>(draws));
  state[1] = next.lo;
  if (state.size() >= 3) state[2] = next.hi;
}

HostValues rngBitGenerator(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& initial = v[0].tensor();
  std::vector<uint64_t> state = stateWords(initial);
  Literal out(op.result(1)->type());
  const RngAlgorithm algorithm = rngAlgorithmOf(op.attr("rng_algorithm"));
  if (bitWidth(out.dtype()) > 64) unsupportedOp(op, "outputs wider than 64 bits");
  if (algorithm == RngAlgorithm::ThreeFry) {
    if (state.size() != 2)
      runtimeError(op, "THREE_FRY needs a 128-bit state, got " + initial.type().str());
    threeFry(state, out);
  } else {  // PHILOX, and DEFAULT, which XLA's backends expand as PHILOX
    if (state.size() != 2 && state.size() != 3)
      runtimeError(op, "PHILOX needs a 128- or 192-bit state, got " + initial.type().str());
    philox(state, out);
  }
  return {fromStateWords(state, initial.type()), out};
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
  t.set(OpCode::RngBitGenerator, &rngBitGenerator);
  t.set(OpCode::Rng, &rng);
}

}  // namespace kiln::interp
