// Every op of the registry has an interpreter kernel, or the interpreter's kernel table
// says why it does not run it (the oracle must not miss an op silently).
#include <gtest/gtest.h>

#include "interp/interpreter.h"

namespace kiln::interp {
namespace {

TEST(KernelTableTest, EveryOpHasAKernelOrAReason) {
  for (const OpInfo& info : allOps()) {
    // Terminators need none: the region evaluator returns their operands; ops defined by
    // a decomposition run it.
    if (hasKernel(info.code) || info.isTerminator() || info.decompose) continue;
    const char* reason = unsupportedReason(info.code);
    EXPECT_TRUE(reason != nullptr && *reason != '\0') << info.name << " has no kernel and no reason";
  }
}

}  // namespace
}  // namespace kiln::interp
