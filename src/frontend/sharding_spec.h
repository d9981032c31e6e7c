// A kiln::NamedSharding in the IR's sharding model (ir/sharding.h), over the program's
// one Shardy mesh, "mesh": what jit's shardings, with_sharding_constraint, device_put
// and shard_map write into programs.
#pragma once

#include <string>

#include "ir/sharding.h"
#include "kiln/sharding.h"

namespace kiln::detail {

// `given` for an array of rank `rank`; Usage errors name `what` (a PartitionSpec longer
// than the rank, an axis the mesh lacks).
Sharding irSharding(const NamedSharding& given, const kiln::Mesh& mesh, size_t rank, const std::string& what);

}  // namespace kiln::detail
