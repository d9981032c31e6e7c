// Facts about ops that several passes need and must agree on: which ops may be removed,
// merged, moved or evaluated at compile time (DCE, CSE, folding, fusion, scheduling), and
// which values of a region an op reads (scheduling, buffer assignment), and which
// operands an op may overwrite as it goes.
#pragma once

#include <vector>

#include "ir/ir.h"

namespace kiln::passes {

// True when running the op does something besides computing its results, or when its
// results may differ between two runs: check and harness ops, collectives and
// communication, rng, custom calls (those marked has_side_effect, and any whose target
// we cannot see into), and ops whose regions hold such an op.
bool hasSideEffects(const Op& op);

// True when every value the op's regions use is defined inside them (or the op has no
// regions): such an op can be copied or evaluated on its own.
bool regionsSelfContained(const Op& op);

// The values of `region` (its arguments and its ops' results) that `op`, an op of that
// region, reads — as operands or from inside its nested regions — each once.
std::vector<Value*> valuesRead(const Op& op, const Region& region);

// Whether `op` may write a result over operand `i` as it goes: it reads that operand's
// value, in every operand it is passed as, only at the index it writes (an elementwise
// op, or a loop, multi_output or dot_epilogue fusion whose ops read it, and what they
// compute from it, only elementwise; an executor of a fusion with several results must
// compute all of them at an index before storing any). Buffer assignment reuses a dying
// operand's bytes so; the cpu backend writes a result into a donated argument so.
bool readsOnlyAtWrittenIndex(const Op& op, size_t i);

}  // namespace kiln::passes
