// Large byte vectors: reserve, advise, then fill.
#include "support/large_bytes.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace kiln {

namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
constexpr size_t kAdviseFrom = 4 * kHugePage;

// The machine's physical memory and swap, in bytes.
size_t memoryAndSwap() {
  static const size_t bytes = [] {
    const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
    size_t total = pages > 0 && pageSize > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(pageSize) : 0;
    // (swap from /proc/meminfo would add little; twice the memory bounds it generously)
    return total == 0 ? SIZE_MAX : 2 * total;
  }();
  return bytes;
}

// Empty, with capacity for `size` bytes whose whole huge pages are advised. These bytes
// are all written at once, so a request beyond what the machine can hold fails here as
// std::bad_alloc, as an allocator without overcommit would, rather than by the OOM
// killer while filling it (or by a sanitizer's allocator, which aborts on such sizes).
std::vector<uint8_t> reserved(size_t size) {
  if (size > memoryAndSwap()) throw std::bad_alloc();
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
