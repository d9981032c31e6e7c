// Tuples at a program's boundary, as MHLO-era exporters write them (`@main` returning
// tuple<...>, or taking one): PJRT passes only arrays, so the entry's tuple parameters
// and results are flattened into their leaves, depth first, as XLA untuples them.
#pragma once

#include "ir/module.h"

namespace kiln::passes {

// Rewrites every public function that no op calls and whose parameters or results hold
// tuples: each tuple parameter becomes its leaves (the body rebuilds the tuple from
// them with stablehlo.tuple) and each tuple result becomes its leaves (read out with
// stablehlo.get_tuple_element), in order. Attributes of a flattened parameter or result
// are dropped; the others keep theirs. Returns how many functions it rewrote.
size_t flattenEntryTuples(Module& module);

}  // namespace kiln::passes
