// The opcodes of the table ir/ops/compiler.def: ops::Fusion, ops::CustomJvp,
// ... (the ops kiln's compiler and autodiff create).
#pragma once
#include "ir/ops/testing.h"  // (its numbers follow that table's)
#define KILN_OPS_TABLE "ir/ops/compiler.def"
#define KILN_OPS_FIRST kTestingEnd
#define KILN_OPS_END kCompilerEnd
#define KILN_OPS_POSITIONS CompilerPositions
#include "ir/ops/opcodes.inc"
#undef KILN_OPS_TABLE
#undef KILN_OPS_FIRST
#undef KILN_OPS_END
#undef KILN_OPS_POSITIONS
