// Before fusion groups a region: a cheap elementwise op that several kernels would read
// is computed again by each of its elementwise readers, from its own operands, when
// those are no more bytes than its result. Layer norm's `x - mean` feeds both the
// variance (a reduce) and the normalized output; the reduce depends on it, so fusion
// could neither make it the reduce kernel's extra output for the output kernel nor copy
// it there, and the reduce kernel wrote all of it (32 MB over 4096x2048) for the output
// kernel to read back. Now the output kernel reads x, which it reads no more of, and
// nothing is written: the same reads, and one full write (and its write-allocate read)
// less. The clones compute the same values, so results do not change.
#pragma once

#include <string>

#include "ir/ir.h"
#include "passes/fusion_plan.h"

namespace kiln::passes {

// Gives each elementwise reader (and each reduce) of such an op in `region`, but one, its
// own copy of it, placed just before the reader; says so in `plan`. Returns whether the
// region changed.
bool recomputeCheapSharedOps(Region& region, const std::string& function, FusionPlan& plan);

}  // namespace kiln::passes
