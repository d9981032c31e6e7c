// Byte vectors for large values (literals, buffers): memory of 8 MiB or more is advised
// to the kernel as huge-page memory before it is first touched, so that filling a fresh
// 64 MiB value takes 32 page faults rather than 16384 (with transparent huge pages in
// "madvise" mode, Debian's default; elsewhere the advice changes nothing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln {

// `size` bytes of zeros.
std::vector<uint8_t> zeroedBytes(size_t size);
// A copy of `size` bytes at `data`.
std::vector<uint8_t> copiedBytes(const uint8_t* data, size_t size);

}  // namespace kiln
