// Verifier rules: region_ops ops (the constraints of ../shared/reference/stablehlo-spec.md).
#include "ir/verifier.h"

namespace kiln {

void addRegionOpRules(RuleTable& table) { (void)table; }

}  // namespace kiln
