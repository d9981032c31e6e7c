// Large byte vectors: reserve, advise, then fill.
#include "support/large_bytes.h"

#include <sys/mman.h>

namespace kiln {

namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
constexpr size_t kAdviseFrom = 4 * kHugePage;

// Empty, with capacity for `size` bytes whose whole huge pages are advised.
std::vector<uint8_t> reserved(size_t size) {
  std::vector<uint8_t> bytes;
  bytes.reserve(size);
  if (size >= kAdviseFrom) {
    const auto start = reinterpret_cast<uintptr_t>(bytes.data());
    const uintptr_t begin = (start + kHugePage - 1) & ~(kHugePage - 1);
    const uintptr_t end = (start + size) & ~(kHugePage - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only
  }
  return bytes;
}

}  // namespace

std::vector<uint8_t> zeroedBytes(size_t size) {
  std::vector<uint8_t> bytes = reserved(size);
  bytes.resize(size);
  return bytes;
}

std::vector<uint8_t> copiedBytes(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes = reserved(size);
  bytes.assign(data, data + size);
  return bytes;
}

}  // namespace kiln
