// Layout copies (buffer_layout.h): one walk over the row-major index space that keeps
// the laid-out offset as it goes, so no element needs a division.
#include "kernels/lapack/buffer_layout.h"

#include <complex>
#include <string>
#include <vector>

#include "support/error.h"

namespace kiln::kernels {
namespace {

// Where each dimension's step lands in the laid-out buffer (in elements).
std::vector<int64_t> laidOutStrides(const Shape& shape, std::span<const int64_t> minorToMajor) {
  std::vector<int64_t> strides(shape.size(), 0);
  int64_t stride = 1;
  for (int64_t d : minorToMajor) {
    strides[static_cast<size_t>(d)] = stride;
    stride *= shape[static_cast<size_t>(d)];
  }
  return strides;
}

// Visits every element in row-major order with its laid-out offset; the innermost
// dimension runs as a loop of its own.
template <class E, bool kToLayout>
void copyElements(const void* from, void* to, const Shape& shape,
                  std::span<const int64_t> minorToMajor) {
  const int64_t total = numElements(shape);
  if (total == 0) return;
  const E* src = static_cast<const E*>(from);
  E* dst = static_cast<E*>(to);
  if (shape.empty()) {
    dst[0] = src[0];
    return;
  }
  const std::vector<int64_t> strides = laidOutStrides(shape, minorToMajor);
  const size_t rank = shape.size();
  const int64_t inner = shape[rank - 1], innerStride = strides[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t laidOut = 0;
  for (int64_t row = 0; row < total; row += inner) {
    for (int64_t j = 0; j < inner; ++j) {
      if constexpr (kToLayout)
        dst[laidOut + j * innerStride] = src[row + j];
      else
        dst[row + j] = src[laidOut + j * innerStride];
    }
    // Next row: carry through the outer dimensions.
    for (size_t d = rank - 1; d-- > 0;) {
      laidOut += strides[d];
      if (++index[d] < shape[d]) break;
      laidOut -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

template <bool kToLayout>
void copyAny(const void* from, void* to, const Shape& shape, std::span<const int64_t> minorToMajor,
             size_t elementBytes) {
  switch (elementBytes) {
    case 1:
      return copyElements<uint8_t, kToLayout>(from, to, shape, minorToMajor);
    case 2:
      return copyElements<uint16_t, kToLayout>(from, to, shape, minorToMajor);
    case 4:
      return copyElements<uint32_t, kToLayout>(from, to, shape, minorToMajor);
    case 8:
      return copyElements<uint64_t, kToLayout>(from, to, shape, minorToMajor);
    case 16:
      return copyElements<std::complex<double>, kToLayout>(from, to, shape, minorToMajor);
    default:
      break;
  }
  // LAPACK's element types are 4, 8 or 16 bytes wide, its integers 4.
  throw Error(ErrorKind::Internal,
              "a layout copy of " + std::to_string(elementBytes) + "-byte elements");
}

}  // namespace

bool isRowMajor(std::span<const int64_t> minorToMajor) {
  const int64_t rank = static_cast<int64_t>(minorToMajor.size());
  for (int64_t i = 0; i < rank; ++i)
    if (minorToMajor[static_cast<size_t>(i)] != rank - 1 - i) return false;
  return true;
}

void toLayout(const void* from, void* to, const Shape& shape, std::span<const int64_t> minorToMajor,
              size_t elementBytes) {
  copyAny<true>(from, to, shape, minorToMajor, elementBytes);
}

void fromLayout(const void* from, void* to, const Shape& shape,
                std::span<const int64_t> minorToMajor, size_t elementBytes) {
  copyAny<false>(from, to, shape, minorToMajor, elementBytes);
}

}  // namespace kiln::kernels
