// Sizes in bytes as people write them: "4G", "512MiB", "1.5GB", "65536". Suffixes are
// binary (K = KiB = KB = 1024 bytes, and so on up to T), as memory sizes are, and are
// read without regard to case.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

// Throws kiln::Error (Usage) naming `what` (the flag or variable it came from) when the
// text is not a size or is negative.
int64_t parseByteSize(std::string_view text, std::string_view what);

// "1.50 GiB", "12.00 MiB", "3.0 KiB", "17 B".
std::string formatBytes(int64_t bytes);

}  // namespace kiln
