// A 128-bit digest of bytes: two independent 64-bit streams (FNV-1a and a
// multiply-rotate mix), fast on large inputs (constants can be hundreds of megabytes).
// Not cryptographic: it names cache entries and checks them for damage. Module
// fingerprints (ir/fingerprint.h) are this digest over a canonical form of the program.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace kiln {

struct Fingerprint {
  uint64_t hi = 0, lo = 0;
  bool operator==(const Fingerprint&) const = default;
  std::string hex() const;  // 32 hex digits
};

// For unordered containers keyed by fingerprints (the bits are already well mixed).
struct FingerprintHash {
  size_t operator()(const Fingerprint& f) const { return static_cast<size_t>(f.hi ^ f.lo); }
};

// The digest of a stream of words, strings and raw bytes fed in order.
class Hasher {
 public:
  // Eight bytes at a time, the tail zero-padded.
  void bytes(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      word(w);
    }
    if (i < n) {
      uint64_t w = 0;
      std::memcpy(&w, p + i, n - i);
      word(w);
    }
  }
  void u64(uint64_t v) { word(v); }
  // Its length, then its bytes (so that "ab","c" and "a","bc" differ).
  void str(std::string_view s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
  Fingerprint result() const { return {a_, b_ ^ (b_ >> 29)}; }

 private:
  void word(uint64_t w) {
    a_ = (a_ ^ w) * 0x100000001b3ull;
    a_ ^= a_ >> 32;
    b_ = std::rotl(b_ ^ (w * 0x9e3779b97f4a7c15ull), 31) * 0xff51afd7ed558ccdull;
  }

  uint64_t a_ = 0xcbf29ce484222325ull;
  uint64_t b_ = 0x84222325cbf29ce4ull;
};

// The digest of `bytes` as one string.
Fingerprint fingerprint(std::string_view bytes);

}  // namespace kiln
