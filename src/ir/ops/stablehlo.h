// The opcodes of the table ir/ops/stablehlo.def: ops::FuncCall, ops::Add, ... (the func
// dialect and every StableHLO op).
#pragma once

#define KILN_OPS_TABLE "ir/ops/stablehlo.def"
#define KILN_OPS_FIRST 0
#define KILN_OPS_END kStablehloEnd
#define KILN_OPS_POSITIONS StablehloPositions
#include "ir/ops/opcodes.inc"
#undef KILN_OPS_TABLE
#undef KILN_OPS_FIRST
#undef KILN_OPS_END
#undef KILN_OPS_POSITIONS
