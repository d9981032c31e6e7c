// Bytes written and read back in order: unsigned integers as LEB128 varints, strings
// with their length first. The reader checks every length against what is left, so
// damaged or truncated bytes are an error (kiln::Error of kind Io, naming `what`), never
// a read past the end. Used for serialized executables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/error.h"

namespace kiln {

class ByteWriter {
 public:
  void u64(uint64_t v) {
    while (v >= 0x80) {
      bytes_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    bytes_.push_back(static_cast<char>(v));
  }
  // Two's complement, as an unsigned varint (values here are sizes and counts, rarely negative).
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void str(std::string_view s) {
    u64(s.size());
    bytes_.append(s);
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  // `what` names the bytes in errors ("serialized executable").
  ByteReader(std::string_view bytes, std::string what) : rest_(bytes), what_(std::move(what)) {}

  uint64_t u64() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (rest_.empty()) fail();
      const auto byte = static_cast<uint8_t>(rest_.front());
      rest_.remove_prefix(1);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    fail();
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  // A count of things each at least one byte long: never more than the bytes left.
  size_t count() {
    const uint64_t n = u64();
    if (n > rest_.size()) fail();
    return static_cast<size_t>(n);
  }
  std::string_view str() {
    const size_t n = count();
    std::string_view s = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return s;
  }
  bool done() const { return rest_.empty(); }

  [[noreturn]] void fail() const { throw Error(ErrorKind::Io, what_ + " is damaged or truncated"); }

 private:
  std::string_view rest_;
  std::string what_;
};

}  // namespace kiln
