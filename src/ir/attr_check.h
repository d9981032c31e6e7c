// Checking attributes against their AttrSpec, and bringing equivalent spellings to the
// one canonical form (old `dense<[1, 2]> : tensor<2xi64>` for an i64 array becomes
// array<i64: 1, 2>, an untyped `3` for an i32 attribute becomes `3 : i32`, ...).
#pragma once

#include <string>

#include "ir/op_registry.h"

namespace kiln {

// The canonical form of `value` for `spec`, or None with `error` set to what is wrong
// ("expected an array of i64, got 3 : i32").
Attribute coerceAttribute(const AttrSpec& spec, const Attribute& value, std::string& error);

// Whether `value` is already in the canonical form for `spec`.
bool attributeMatches(const AttrSpec& spec, const Attribute& value);

// A short human description of what `spec` expects ("an array of i64").
std::string describeAttrKind(const AttrSpec& spec);

}  // namespace kiln
