// NumPy-like text of an array: nested brackets, aligned columns, and "..." in the middle
// of long dimensions, so large results stay readable.
#pragma once

#include <string>

#include "ir/literal.h"

namespace kiln::interp {

// `edgeItems` elements are shown at each end of a dimension longer than 2*edgeItems
// when the array has more than `threshold` elements (NumPy's defaults: 3 and 1000).
std::string formatArray(const Literal& value, int64_t threshold = 1000, int64_t edgeItems = 3);

}  // namespace kiln::interp
