// The opcodes of the table ir/ops/kiln.def: kiln's own primitive ops.
#pragma once
#include "ir/ops/compiler.h"  // (its numbers follow that table's)
#define KILN_OPS_TABLE "ir/ops/kiln.def"
#define KILN_OPS_FIRST kCompilerEnd
#define KILN_OPS_END kKilnEnd
#define KILN_OPS_POSITIONS KilnPositions
#include "ir/ops/opcodes.inc"
#undef KILN_OPS_TABLE
#undef KILN_OPS_FIRST
#undef KILN_OPS_END
#undef KILN_OPS_POSITIONS
