// A sharding as a serialized xla.OpSharding, what PJRT's shardings extension hands a
// framework for each parameter and result of an executable (JAX reads its jit's output
// shardings from it). Field numbers, checked against the bytes jaxlib 0.10.2 serializes
// (tests/runtime/op_sharding_proto_test.cc): 1 type (REPLICATED 0, MAXIMAL 1, OTHER 3,
// MANUAL 4), 3 tile_assignment_dimensions, 4 tile_assignment_devices (both packed),
// 6 replicate_on_last_tile_dim, 8 last_tile_dims (packed types).
#pragma once

#include <string>

#include "ir/sharding.h"

namespace kiln::runtime::proto {

std::string writeOpSharding(const Sharding& sharding);

}  // namespace kiln::runtime::proto
