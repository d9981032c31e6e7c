// Which build of kiln is running: caches of compiled code are keyed by it, so code an
// older build made (another emitter, another pass pipeline) is never reused.
#pragma once

#include <string>

namespace kiln {

// The identity of the loaded binary (executable or shared library) whose code holds
// `address`: its GNU build id as hex (the linker's hash of everything linked), or, for
// a binary linked without one, its path, size and modification time. A rebuild that
// changes any code gives another identity; identical sources give the same one.
std::string buildIdOf(const void* address);

}  // namespace kiln
