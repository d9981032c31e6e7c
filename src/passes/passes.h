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

// A pass by its name ("inline", "simplify", "fold", "cse", "dce", "fusion", "schedule",
// "buffers"); throws a usage error naming the known ones.
std::unique_ptr<Pass> createPass(const std::string& name);
// The names of the full pipeline, in order.
std::vector<std::string> defaultPipeline();
// The pass names of a comma-separated list ("inline,cse,dce"), or the full pipeline when
// it is empty; throws the createPass error for an unknown name.
std::vector<std::string> parsePassList(const std::string& list);
// The names of every pass.
std::vector<std::string> allPassNames();

}  // namespace kiln::passes
