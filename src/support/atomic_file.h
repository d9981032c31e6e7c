// Writing a file so that readers see either the old contents or the new, never a part:
// the bytes go to a temporary name beside it, which is then renamed over it (rename is
// atomic within a file system). An interrupted writer leaves at most a stray temporary.
#pragma once

#include <string>
#include <string_view>

namespace kiln {

// Throws kiln::Error (Io) naming the path when it cannot be written.
void writeFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace kiln
