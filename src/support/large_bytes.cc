// Large byte vectors: reserve, advise, then fill.
#include "support/large_bytes.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <mutex>
#include <new>

namespace kiln {

namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
constexpr size_t kAdviseFrom = 4 * kHugePage;
constexpr size_t kRecycleFrom = 4 * kHugePage;

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

// The memory of large vectors freed lately, for the next of about their size: at most
// kKeptVectors of them and kKeptBytes in all (less on a small machine), the oldest
// freed first when more come.
class Recycled {
 public:
  static Recycled& pool() {
    static Recycled* p = new Recycled;  // never destroyed: vectors die during exit too
    return *p;
  }
  // A kept vector with capacity for `size` bytes, its old bytes still in it, or an empty
  // one; a kept vector serves sizes down to 4/5 of its capacity (a value holds little it
  // does not use).
  std::vector<uint8_t> take(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto best = kept_.end();
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
      if (it->capacity() >= size && it->capacity() / 5 * 4 <= size && (best == kept_.end() || it->capacity() < best->capacity()))
        best = it;
    if (best == kept_.end()) return {};
    std::vector<uint8_t> bytes = std::move(*best);
    keptBytes_ -= bytes.capacity();
    kept_.erase(best);
    return bytes;
  }
  void keep(std::vector<uint8_t>&& bytes) {
    const size_t limit = std::min(kKeptBytes, memoryAndSwap() / 16);
    if (bytes.capacity() > limit) return;  // freed by the caller
    std::vector<std::vector<uint8_t>> dropped;  // freed after the lock is released
    std::lock_guard<std::mutex> lock(mutex_);
    while (!kept_.empty() && (kept_.size() >= kKeptVectors || keptBytes_ + bytes.capacity() > limit)) {
      keptBytes_ -= kept_.front().capacity();
      dropped.push_back(std::move(kept_.front()));
      kept_.pop_front();
    }
    keptBytes_ += bytes.capacity();
    kept_.push_back(std::move(bytes));
  }

 private:
  static constexpr size_t kKeptVectors = 8;
  static constexpr size_t kKeptBytes = size_t{1} << 30;
  std::mutex mutex_;
  std::deque<std::vector<uint8_t>> kept_;  // oldest first
  size_t keptBytes_ = 0;
};

// Capacity for `size` bytes whose whole huge pages are advised: empty, or with
// `keepOldBytes` a freed value's memory as it was (its old size and bytes). These bytes
// are all written at once, so a request beyond what the machine can hold fails here as
// std::bad_alloc, as an allocator without overcommit would, rather than by the OOM
// killer while filling it (or by a sanitizer's allocator, which aborts on such sizes).
std::vector<uint8_t> reserved(size_t size, bool keepOldBytes = false) {
  if (size > memoryAndSwap()) throw std::bad_alloc();
  if (size >= kRecycleFrom)
    if (std::vector<uint8_t> kept = Recycled::pool().take(size); kept.capacity() > 0) {
      if (!keepOldBytes) kept.clear();
      return kept;
    }
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

std::vector<uint8_t> bytesToOverwrite(size_t size) {
  std::vector<uint8_t> bytes = reserved(size, true);
  bytes.resize(size);  // (writes only what lies past its old size)
  return bytes;
}

std::vector<uint8_t> copiedBytes(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes = reserved(size);
  bytes.assign(data, data + size);
  return bytes;
}

std::shared_ptr<std::vector<uint8_t>> sharedBytes(std::vector<uint8_t> bytes) {
  if (bytes.capacity() < kRecycleFrom) return std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  return std::shared_ptr<std::vector<uint8_t>>(new std::vector<uint8_t>(std::move(bytes)), [](std::vector<uint8_t>* v) {
    try {
      Recycled::pool().keep(std::move(*v));
    } catch (const std::bad_alloc&) {
      // (no room to keep it: freed below)
    }
    delete v;
  });
}

}  // namespace kiln
