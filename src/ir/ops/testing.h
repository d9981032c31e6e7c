// The opcodes of the table ir/ops/testing.def: ops::CheckExpectEq,
// ops::InterpreterRunParallel, ... (the test harness ops).
#pragma once
#include "ir/ops/chlo.h"  // (its numbers follow that table's)
#define KILN_OPS_TABLE "ir/ops/testing.def"
#define KILN_OPS_FIRST kChloEnd
#define KILN_OPS_END kTestingEnd
#define KILN_OPS_POSITIONS TestingPositions
#include "ir/ops/opcodes.inc"
#undef KILN_OPS_TABLE
#undef KILN_OPS_FIRST
#undef KILN_OPS_END
#undef KILN_OPS_POSITIONS
