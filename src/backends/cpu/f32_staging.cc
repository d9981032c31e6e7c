// Widening f16/bf16 buffers to f32 and rounding f32 back (f32_staging.h).
#include "backends/cpu/f32_staging.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "backends/cpu/threads.h"

namespace kiln::cpu {
namespace {

// Below this many elements one thread converts (a part of the pool costs more).
constexpr int64_t kElementsPerPart = int64_t{1} << 16;

uint32_t bitsOf(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

float floatOf(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// Eight elements at a time on AVX2 and F16C (GCC's -O2 leaves the plain loops scalar),
// then the plain loops for the rest and for other CPUs.
__attribute__((target("avx2,f16c"))) int64_t widenEights(DType from, const void* src, float* dst, int64_t begin,
                                                         int64_t end) {
  int64_t i = begin;
  for (; i + 8 <= end; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(src) + i));
    const __m256 x = from == DType::BF16 ? _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16))
                                         : _mm256_cvtph_ps(h);
    _mm256_storeu_ps(dst + i, x);
  }
  return i;
}

__attribute__((target("avx2,f16c"))) int64_t narrowEights(DType to, const float* src, void* dst, int64_t begin,
                                                          int64_t end) {
  const __m256 quietNan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000));  // the format's NaN, widened
  int64_t i = begin;
  for (; i + 8 <= end; i += 8) {
    __m256 x = _mm256_loadu_ps(src + i);
    x = _mm256_blendv_ps(x, quietNan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    __m128i h;
    if (to == DType::BF16) {
      const __m256i b = _mm256_castps_si256(x);
      const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
      const __m256i r = _mm256_srli_epi32(_mm256_add_epi32(b, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))), 16);
      // (packus packs within 128-bit lanes: the permute puts the two halves together.)
      h = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08));
    } else {
      h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint16_t*>(dst) + i), h);
  }
  return i;
}

bool hasAvx2F16c() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return has;
}

void widenRange(DType from, const void* src, float* dst, int64_t begin, int64_t end) {
  if (from == DType::F32) {
    std::memcpy(dst + begin, static_cast<const float*>(src) + begin, static_cast<size_t>(end - begin) * sizeof(float));
    return;
  }
  if (hasAvx2F16c()) begin = widenEights(from, src, dst, begin, end);
  if (from == DType::BF16) {
    const uint16_t* s = static_cast<const uint16_t*>(src);
    for (int64_t i = begin; i < end; ++i) dst[i] = floatOf(uint32_t{s[i]} << 16);
  } else {
    const _Float16* s = static_cast<const _Float16*>(src);
    for (int64_t i = begin; i < end; ++i) dst[i] = static_cast<float>(s[i]);
  }
}

void narrowRange(DType to, const float* src, void* dst, int64_t begin, int64_t end) {
  if (to == DType::F32) {
    std::memcpy(static_cast<float*>(dst) + begin, src + begin, static_cast<size_t>(end - begin) * sizeof(float));
    return;
  }
  if (hasAvx2F16c()) begin = narrowEights(to, src, dst, begin, end);
  uint16_t* d = static_cast<uint16_t*>(dst);
  if (to == DType::BF16) {
    for (int64_t i = begin; i < end; ++i) {
      const uint32_t b = bitsOf(src[i]);
      const uint32_t rounded = (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16;  // to nearest, ties to even
      d[i] = std::isnan(src[i]) ? uint16_t{0x7FC0} : static_cast<uint16_t>(rounded);
    }
  } else {
    for (int64_t i = begin; i < end; ++i) {
      const _Float16 h = static_cast<_Float16>(src[i]);
      uint16_t b;
      std::memcpy(&b, &h, sizeof b);
      d[i] = std::isnan(src[i]) ? uint16_t{0x7E00} : b;
    }
  }
}

template <class Range>
void inParts(int64_t n, const Range& range) {
  const int64_t parts = std::clamp<int64_t>(n / kElementsPerPart, 1, threadCount());
  runParts(parts, [&](int64_t p) { range(p * n / parts, (p + 1) * n / parts); });
}

struct Buffer {
  std::unique_ptr<float[]> data;
  int64_t size = 0;
};

}  // namespace

float* stagingBuffer(StagingSlot slot, int64_t n) {
  thread_local Buffer buffers[static_cast<int>(StagingSlot::Windows) + 1];
  Buffer& b = buffers[static_cast<int>(slot)];
  if (b.size < n) {
    b.data.reset();  // (the old one first: the two need not be held at once)
    b.data.reset(new float[static_cast<size_t>(n)]);
    b.size = n;
  }
  return b.data.get();
}

bool stagesThroughF32(DType t) { return t == DType::F16 || t == DType::BF16 || t == DType::F32; }

void widenToF32(DType from, const void* src, float* dst, int64_t n) {
  inParts(n, [&](int64_t begin, int64_t end) { widenRange(from, src, dst, begin, end); });
}

void narrowFromF32(DType to, const float* src, void* dst, int64_t n) {
  inParts(n, [&](int64_t begin, int64_t end) { narrowRange(to, src, dst, begin, end); });
}

}  // namespace kiln::cpu
