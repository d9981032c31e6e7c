// A cap on the memory a program's buffers take (`--memory-limit`, KILN_MEMORY_LIMIT): a
// program whose buffer assignment needs more at its peak than the cap is refused when it
// is compiled, with the buffers live there that take the most (their ops and lines),
// rather than killed for lack of memory halfway through a run.
#pragma once

#include <cstdint>

#include "ir/module.h"

namespace kiln::passes {

// Throws kiln::Error (ResourceExhausted, located at the op where the peak is) when a
// function of `module` needs more than `limitBytes` at its peak: its parameters, its
// results and its temporaries live at once (buffer_assignment.h). 0: no limit.
void checkMemoryLimit(const Module& module, int64_t limitBytes);

// The limit KILN_MEMORY_LIMIT sets ("4G", "512M", bytes), or 0 when it is not set.
int64_t memoryLimitFromEnvironment();

}  // namespace kiln::passes
