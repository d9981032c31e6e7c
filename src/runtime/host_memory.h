// What host memory holds as PJRT passes it: the elements of a (dtype, dims) value in
// row-major order. How a plugin reads the type a caller names and moves values in and
// out of such memory, for buffers and for a device's feeds alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include "interp/host_value.h"
#include "ir/type.h"

namespace kiln::runtime {

// The tensor type of `dtype` and `dims`: throws ApiFailure (INVALID_ARGUMENT) for null
// dims, a negative size, or a value too large to address.
Type tensorType(DType dtype, const int64_t* dims, size_t numDims);

// Throws ApiFailure (INVALID_ARGUMENT) when `data` is null for a value of `type` that has
// bytes.
void requireData(const Type& type, const void* data, const char* what);

// A value of `type` from its bytes at `data` (copied; null only when there are none).
interp::HostValue valueFromHost(const Type& type, const void* data);

// The elements of `value` in row-major order at `dst` (a splat is expanded; a token has
// none).
void copyElements(const interp::HostValue& value, void* dst);

}  // namespace kiln::runtime
