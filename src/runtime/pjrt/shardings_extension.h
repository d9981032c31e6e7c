// PJRT's shardings extension on kiln's plugins (include/kiln/pjrt/shardings_extension.h):
// the parameter and output shardings of a program kiln partitioned.
#pragma once

#include "kiln/pjrt/c_api.h"

namespace kiln::runtime::pjrt {

// The extension, in static storage, ahead of `next` on the table's extension chain.
const PJRT_Extension_Base* shardingsExtension(const PJRT_Extension_Base* next);

}  // namespace kiln::runtime::pjrt
