// The kiln extension of kiln's plugins' PJRT table (include/kiln/pjrt/kiln_extension.h).
#pragma once

#include "kiln/pjrt/kiln_extension.h"

namespace kiln::runtime::pjrt {

// The extension, in static storage: the start of the table's extension chain.
const PJRT_Extension_Base* kilnExtension();

}  // namespace kiln::runtime::pjrt
