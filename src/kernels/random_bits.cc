// rng_bit_generator's generators (random_bits.h).
#include "kernels/random_bits.h"

#include <array>
#include <cstring>

namespace kiln::kernels {
namespace {

uint32_t lo32(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
uint64_t join32(uint32_t lo, uint32_t hi) { return uint64_t{lo} | (uint64_t{hi} << 32); }
uint32_t rotl32(uint32_t v, int d) { return (v << d) | (v >> (32 - d)); }

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
    const uint64_t p0 = uint64_t{x[0]} * 0xD2511F53u;
    const uint64_t p1 = uint64_t{x[2]} * 0xCD9E8D57u;
    const uint32_t next[4] = {hi32(p1) ^ x[1] ^ k0, lo32(p1), hi32(p0) ^ x[3] ^ k1, lo32(p0)};
    std::memcpy(x, next, sizeof x);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {x[0], x[1], x[2], x[3]};
}

bool threeFry(const RngBitsLayout& l) { return l.algorithm == RngAlgorithm::ThreeFry; }
uint64_t maskOf(int width) { return width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

void put(void* out, int width, int64_t i, uint64_t bits) {
  auto* bytes = static_cast<uint8_t*>(out) + i * (width / 8);
  for (int b = 0; b < width / 8; ++b) bytes[b] = static_cast<uint8_t>(bits >> (8 * b));
}

// PHILOX: the key is word 0; the 128-bit counter is words 1..2, or with a two-word state
// word 1 under word 0 (XLA reverses the state).
U128 philoxCounter(const std::vector<uint64_t>& words) {
  return words.size() >= 3 ? U128{words[1], words[2]} : U128{words[1], words[0]};
}

// Threefry of an output of 32 bits or fewer: XLA draws one pair of words per two
// outputs, pairing neighbours along the first even dimension (else the first largest),
// so that dimension's index i takes word i % 2 of the draw at index i / 2.
size_t pairedDimension(const Shape& shape) {
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] % 2 == 0) return d;
  size_t largest = 0;
  for (size_t d = 1; d < shape.size(); ++d)
    if (shape[d] > shape[largest]) largest = d;
  return largest;
}

Shape halved(const Shape& shape) {
  if (shape.empty()) return shape;
  Shape half = shape;
  const size_t split = pairedDimension(shape);
  half[split] = (shape[split] + 1) / 2;
  return half;
}

}  // namespace

std::optional<RngBitsLayout> RngBitsLayout::of(RngAlgorithm algorithm, const Type& state, const Type& out) {
  auto width = [](DType t) -> std::optional<int> {
    const int bits = bitWidth(t);
    if ((bits == 8 || bits == 16 || bits == 32 || bits == 64) && storageBytes(t) * 8 == bits && !isBool(t)) return bits;
    return std::nullopt;
  };
  std::optional<int> s = width(state.dtype()), o = width(out.dtype());
  if (!s || !o) return std::nullopt;
  return RngBitsLayout{algorithm, *s, state.numElements(), *o, out.shape()};
}

std::optional<std::string> rngStateProblem(const RngBitsLayout& l) {
  const int64_t words = (l.stateElements * l.stateWidth + 63) / 64;
  if (threeFry(l) && words != 2) return "THREE_FRY needs a 128-bit state";
  if (!threeFry(l) && words != 2 && words != 3) return "PHILOX needs a 128- or 192-bit state";
  return std::nullopt;
}

std::vector<uint64_t> rngStateWords(const RngBitsLayout& l, const void* state) {
  const int perWord = 64 / l.stateWidth;
  std::vector<uint64_t> words(static_cast<size_t>((l.stateElements + perWord - 1) / perWord));
  const auto* bytes = static_cast<const uint8_t*>(state);
  const int elementBytes = l.stateWidth / 8;
  for (int64_t i = 0; i < l.stateElements; ++i) {
    uint64_t bits = 0;
    for (int b = 0; b < elementBytes; ++b) bits |= uint64_t{bytes[i * elementBytes + b]} << (8 * b);
    words[static_cast<size_t>(i / perWord)] |= bits << ((i % perWord) * l.stateWidth);
  }
  if (l.stateWidth == 32 && l.stateElements == 4) words[1] = (words[1] << 32) | (words[1] >> 32);
  return words;
}

void rngWriteState(const RngBitsLayout& l, const std::vector<uint64_t>& words, void* state) {
  const int perWord = 64 / l.stateWidth;
  for (int64_t i = 0; i < l.stateElements; ++i)
    put(state, l.stateWidth, i,
        (words[static_cast<size_t>(i / perWord)] >> ((i % perWord) * l.stateWidth)) & maskOf(l.stateWidth));
}

int64_t rngDraws(const RngBitsLayout& l) {
  const int64_t n = numElements(l.outShape);
  if (threeFry(l)) return l.outWidth == 64 ? n : (l.outShape.empty() ? 1 : numElements(halved(l.outShape)));
  const int64_t perDraw = l.outWidth == 64 ? 2 : 4;
  return (n + perDraw - 1) / perDraw;
}

void rngDraw(const RngBitsLayout& l, const std::vector<uint64_t>& words, void* out, int64_t begin, int64_t end) {
  const uint64_t mask = maskOf(l.outWidth);
  const int64_t n = numElements(l.outShape);
  if (threeFry(l)) {
    const uint64_t key = words[0], counter = words[1];
    if (l.outWidth == 64) {
      for (int64_t i = begin; i < end; ++i) {
        const std::array<uint32_t, 2> w = threeFry2x32(counter + static_cast<uint64_t>(i), key);
        put(out, 64, i, join32(w[0], w[1]));
      }
      return;
    }
    if (l.outShape.empty()) {
      if (begin == 0 && end > 0) put(out, l.outWidth, 0, threeFry2x32(counter, key)[0] & mask);
      return;
    }
    // Draw h is the element h of the halved shape; its two words go to the elements
    // 2i and 2i + 1 of the paired dimension.
    const Shape& shape = l.outShape;
    const size_t split = pairedDimension(shape);
    const Shape half = halved(shape);
    int64_t inner = 1;  // the elements after the paired dimension
    for (size_t d = split + 1; d < shape.size(); ++d) inner *= shape[d];
    for (int64_t h = begin; h < end; ++h) {
      const int64_t within = h % inner;
      const int64_t pair = (h / inner) % half[split];
      const int64_t outer = h / inner / half[split];
      const std::array<uint32_t, 2> w = threeFry2x32(counter + static_cast<uint64_t>(h), key);
      for (int64_t j = 0; j < 2; ++j) {
        const int64_t at = 2 * pair + j;
        if (at < shape[split]) put(out, l.outWidth, (outer * shape[split] + at) * inner + within, w[j] & mask);
      }
    }
    return;
  }
  const uint64_t key = words[0];
  const U128 counter = philoxCounter(words);
  const int64_t perDraw = l.outWidth == 64 ? 2 : 4;
  for (int64_t d = begin; d < end; ++d) {
    const std::array<uint32_t, 4> w = philox4x32(counter.plus(static_cast<uint64_t>(d)), key);
    for (int64_t j = 0; j < perDraw && d * perDraw + j < n; ++j) {
      const uint64_t bits = l.outWidth == 64 ? join32(w[2 * j], w[2 * j + 1]) : w[j];
      put(out, l.outWidth, d * perDraw + j, bits & mask);
    }
  }
}

std::vector<uint64_t> rngAdvance(const RngBitsLayout& l, std::vector<uint64_t> words) {
  const auto draws = static_cast<uint64_t>(rngDraws(l));
  if (threeFry(l)) {
    words[1] += draws;
    return words;
  }
  const U128 next = philoxCounter(words).plus(draws);
  words[1] = next.lo;
  if (words.size() >= 3) words[2] = next.hi;
  return words;
}

}  // namespace kiln::kernels
