// A global array and its pieces under a sharding: what a host hands each device of a
// partitioned program (shardOf) and how it puts the devices' results back together
// (assembleShards). Devices are the mesh's device ids (partition ids of the program).
#pragma once

#include <vector>

#include "ir/literal.h"
#include "ir/sharding.h"

namespace kiln {

// The piece of `global` device `device` holds under `s` (the whole array when `s` does
// not split it).
Literal shardOf(const Literal& global, const Sharding& s, int64_t device);

// The global array of type `global` from the pieces of devices 0, 1, ... under `s`; the
// copies of a replicated piece must agree (else a Runtime error naming the devices).
Literal assembleShards(const std::vector<Literal>& pieces, const Sharding& s, const Type& global);

}  // namespace kiln
