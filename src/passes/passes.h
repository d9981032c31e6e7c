// Every pass kiln has, by factory, and the pipeline they form. Each pass lives in its
// own file of this folder (named after it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace kiln::passes {

std::unique_ptr<Pass> createInlinePass();          // inline.cc: func.call → the callee's body
std::unique_ptr<Pass> createSimplifyPass();        // simplify.cc: algebraic rewrites
std::unique_ptr<Pass> createConstantFoldPass();    // constant_fold.cc: through the interpreter
std::unique_ptr<Pass> createCsePass();             // cse.cc: structural, region-aware
std::unique_ptr<Pass> createDcePass();             // dce.cc: keeps side effects
std::unique_ptr<Pass> createFusionPass();          // fusion.cc: ops → kiln.fusion kernels
std::unique_ptr<Pass> createSchedulePass();        // schedule.cc: order for low peak memory
std::unique_ptr<Pass> createBufferAssignmentPass();// buffer_assignment.cc: liveness, reuse
std::unique_ptr<Pass> createLowerChloPass();       // lower_chlo.cc: CHLO → StableHLO
std::unique_ptr<Pass> createSplitComplexSumsPass(); // split_complex_sums.cc: complex sums as sums of parts

// A pass by its name ("inline", "simplify", "fold", "cse", "dce", "fusion", "schedule",
// "buffers"), or a fixpoint group "fixpoint(simplify,fold)" (fixpoint.h; groups nest);
// throws ErrorKind::Usage for an unknown name (naming the known ones) or bad syntax.
std::unique_ptr<Pass> createPass(const std::string& name);
// The names of the full pipeline, in order.
std::vector<std::string> defaultPipeline();
// The pass names of a comma-separated list ("inline,fixpoint(simplify,fold),cse"; commas
// inside a group's parentheses belong to the group, spaces around names are ignored), or
// the full pipeline when it is empty. The names are canonical (createPass(n)->name() ==
// n); throws the createPass errors, before any pass could run.
std::vector<std::string> parsePassList(const std::string& list);
// The names of every single pass (fixpoint groups are made of these).
std::vector<std::string> allPassNames();

}  // namespace kiln::passes
