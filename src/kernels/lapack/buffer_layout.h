// Copies between kiln's dense row-major buffers and buffers laid out in another
// dimension order, given as MLIR/XLA layouts are: minor-to-major (the first dimension
// listed varies fastest). A custom call's operand_layouts and result_layouts say how its
// kernel sees its buffers; jaxlib's LAPACK kernels ask for column-major matrices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ir/type.h"

namespace kiln::kernels {

// Whether `minorToMajor` is kiln's own order (rank-1 ... 0), so no copy is needed.
bool isRowMajor(std::span<const int64_t> minorToMajor);

// Row-major `from` (of `shape`, elements `elementBytes` wide) into `to`, laid out by
// `minorToMajor` (a permutation of the dimensions), and back.
void toLayout(const void* from, void* to, const Shape& shape, std::span<const int64_t> minorToMajor,
              size_t elementBytes);
void fromLayout(const void* from, void* to, const Shape& shape,
                std::span<const int64_t> minorToMajor, size_t elementBytes);

}  // namespace kiln::kernels
