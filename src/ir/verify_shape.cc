// Verifier rules: shape ops (the constraints of ../shared/reference/stablehlo-spec.md).
#include "ir/verifier.h"

namespace kiln {

void addShapeRules(RuleTable& table) { (void)table; }

}  // namespace kiln
