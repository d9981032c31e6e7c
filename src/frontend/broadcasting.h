// The pieces the ops share: NumPy's axis numbering and broadcasting of shapes, and the
// conversions that bring operands to the dtype they were promoted to.
#pragma once

#include <string>

#include "frontend/array_impl.h"
#include "ir/builder.h"

namespace kiln::detail {

// `axis` of an array of `rank` axes counted from 0 (a negative one from the end); throws
// Shape naming `op` when out of range.
int64_t normalizedAxis(int64_t axis, int64_t rank, const std::string& op);

// The shape a and b broadcast to (NumPy: align trailing dimensions; 1 stretches).
// Throws Shape naming `op` and both shapes when they do not.
Shape broadcastShapes(const Shape& a, const Shape& b, const std::string& op);
// `v` broadcast to `shape` (its dimensions aligned with the trailing ones).
Value* broadcastValue(Builder& b, Value* v, const Shape& shape);
// `v` converted to `dtype` (itself when it has it).
Value* convertValue(Builder& b, Value* v, DType dtype);
// A weak C scalar as a scalar of `dtype` (still weak), so that its value is not rounded
// through its default dtype; other arrays as they are.
Array withDtype(const Array& a, DType dtype);

}  // namespace kiln::detail
