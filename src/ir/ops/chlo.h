// The opcodes of the table ir/ops/chlo.def: ops::ChloErf, ... (the CHLO ops kiln
// decomposes).
#pragma once
#include "ir/ops/stablehlo.h"  // (its numbers follow that table's)
#define KILN_OPS_TABLE "ir/ops/chlo.def"
#define KILN_OPS_FIRST kStablehloEnd
#define KILN_OPS_END kChloEnd
#define KILN_OPS_POSITIONS ChloPositions
#include "ir/ops/opcodes.inc"
#undef KILN_OPS_TABLE
#undef KILN_OPS_FIRST
#undef KILN_OPS_END
#undef KILN_OPS_POSITIONS
