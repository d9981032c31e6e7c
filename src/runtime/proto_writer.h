// Writing protobuf's wire format: varints and the two kinds of fields kiln writes
// (varint numbers and length-delimited bytes, packed repeated numbers among them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime::proto {

inline void putVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
inline void putNumber(std::string& out, uint32_t number, uint64_t value) {
  putVarint(out, uint64_t{number} << 3);
  putVarint(out, value);
}
inline void putBytes(std::string& out, uint32_t number, const std::string& bytes) {
  putVarint(out, (uint64_t{number} << 3) | 2);
  putVarint(out, bytes.size());
  out += bytes;
}
// A packed repeated integer field (negative values as ten-byte varints, as int64 writes them).
inline void putPacked(std::string& out, uint32_t number, const std::vector<int64_t>& values) {
  std::string packed;
  for (int64_t v : values) putVarint(packed, static_cast<uint64_t>(v));
  putBytes(out, number, packed);
}

}  // namespace kiln::runtime::proto
