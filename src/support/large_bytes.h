// Byte vectors for large values (literals, buffers): memory of 8 MiB or more is advised
// to the kernel as huge-page memory before it is first touched, so that filling a fresh
// 64 MiB value takes 32 page faults rather than 16384 (with transparent huge pages in
// "madvise" mode, Debian's default; elsewhere the advice changes nothing). And the
// memory of a large value that is freed is kept for the next one of about its size,
// until newer ones displace it: the kernel zero-fills every fresh page on its first
// touch, which costs more than most work done on the value (a 64 MiB all_reduce's
// result spent two thirds of its time there), so a program that makes a value of that
// size per step reuses one. (Each copy of kiln keeps its own: a host and each plugin.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace kiln {

// `size` bytes of zeros.
std::vector<uint8_t> zeroedBytes(size_t size);
// `size` bytes for a value that is written whole before anything reads it: the memory
// of a freed value keeps its old bytes (the pass that would zero them is saved),
// fresh memory is zeros.
std::vector<uint8_t> bytesToOverwrite(size_t size);
// A copy of `size` bytes at `data`.
std::vector<uint8_t> copiedBytes(const uint8_t* data, size_t size);
// `bytes`, shared; when large, its memory is kept for a later zeroedBytes, bytesToOverwrite or copiedBytes
// once the last owner lets go (a few such vectors, up to a bound, the oldest given back
// first).
std::shared_ptr<std::vector<uint8_t>> sharedBytes(std::vector<uint8_t> bytes);

}  // namespace kiln
