// Verifier rules: elementwise ops (the constraints of ../shared/reference/stablehlo-spec.md).
#include "ir/verifier.h"

namespace kiln {

void addElementwiseRules(RuleTable& table) { (void)table; }

}  // namespace kiln
