// Module fingerprints: a 128-bit digest of a program's structure, the key of every
// compile cache. The same program gives the same fingerprint in every process and run,
// whatever its SSA names and source locations: values are numbered in definition order,
// and locations (which say where a program came from, not what it computes) are left out.
#pragma once

#include <string>
#include <string_view>

#include "ir/module.h"

namespace kiln {

struct Fingerprint {
  uint64_t hi = 0, lo = 0;
  bool operator==(const Fingerprint&) const = default;
  std::string hex() const;  // 32 hex digits
};

// Functions (names, visibility, types, argument and result attributes), their ops in order
// with operands, result types, attributes and regions, and the module's attributes.
Fingerprint fingerprint(const Module& module);

// The same digest of raw bytes (what the cpu backend's disk cache names entries by).
Fingerprint fingerprint(std::string_view bytes);

}  // namespace kiln
