// What executable_serialize writes and executable_deserialize reads: the runtime's own
// header (the placement: replicas, partitions, device assignment, the entry and each
// process's function), the size and checksum of the backend's bytes, then those bytes.
// The checksum finds damage before a backend is given bytes it would misread.
#pragma once

#include <string>
#include <string_view>

#include "runtime/plugin_objects.h"

namespace kiln::runtime {

// The bytes of an executable placed as `where` whose backend serialized it as `program`.
std::string serializeExecutable(const Placement& where, const std::string& program);

// Reads the header serializeExecutable wrote off the front of `bytes` (which is left
// holding the backend's bytes), checking their size and checksum. Throws ApiFailure
// (IO) for bytes that are not such an executable or were damaged.
Placement deserializePlacement(std::string_view& bytes);

}  // namespace kiln::runtime
