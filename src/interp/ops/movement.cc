// Kernels: (to be written) — see kernels.h for the family this file holds.
#include "interp/kernels.h"

namespace kiln::interp {

void addMovementKernels(KernelTable& table) { (void)table; }

}  // namespace kiln::interp
