// Verifier rules: misc ops (the constraints of ../shared/reference/stablehlo-spec.md).
#include "ir/verifier.h"

namespace kiln {

void addMiscRules(RuleTable& table) { (void)table; }

}  // namespace kiln
