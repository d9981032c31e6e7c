// What the data-movement kernels (movement.cc, gather_scatter.cc, sort.cc) share: elements
// are moved as raw storage bytes, so one loop serves every dtype, and index operands are
// read as saturated int64 so that clamping works for any integer index type.
#pragma once

#include <cstring>
#include <vector>

#include "interp/kernels.h"

namespace kiln::interp {

// Copies whole elements between two tensors of one dtype by their storage bytes.
class ElementCopier {
 public:
  ElementCopier(const Literal& src, Literal& dst)
      : width_(static_cast<size_t>(storageBytes(src.dtype()))),
        src_(src.storage()),
        srcSplat_(src.isSplat()),
        dst_(dst.mutableStorage()) {}
  void copy(int64_t dstIndex, int64_t srcIndex) const {
    std::memcpy(dst_ + static_cast<size_t>(dstIndex) * width_,
                src_ + (srcSplat_ ? 0 : static_cast<size_t>(srcIndex) * width_), width_);
  }
  // `count` consecutive elements; a splat source repeats its one element.
  void copyRun(int64_t dstIndex, int64_t srcIndex, int64_t count) const {
    if (srcSplat_) {
      for (int64_t i = 0; i < count; ++i) copy(dstIndex + i, 0);
      return;
    }
    std::memcpy(dst_ + static_cast<size_t>(dstIndex) * width_,
                src_ + static_cast<size_t>(srcIndex) * width_, static_cast<size_t>(count) * width_);
  }

 private:
  size_t width_;
  const uint8_t* src_;
  bool srcSplat_;
  uint8_t* dst_;
};

// Element `i` of an integer tensor as an index; unsigned values beyond int64 saturate,
// so that clamping them to a dimension gives the upper bound as it should.
inline int64_t indexAt(const Literal& lit, int64_t i) {
  if (isUnsignedInt(lit.dtype())) {
    uint64_t u = lit.uintAt(i);
    return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
  }
  return lit.intAt(i);
}

// The elements of a rank-1 integer tensor as indices.
std::vector<int64_t> indexList(const Literal& lit);

// dst[dstBase + sum_d i[d] * dstStrides[d]] = src[srcBase + sum_d i[d] * srcStrides[d]]
// for every index i of `shape` (strides in elements; zero or negative ones allowed).
void copyBlock(const ElementCopier& copier, const Shape& shape, int64_t dstBase,
               const std::vector<int64_t>& dstStrides, int64_t srcBase,
               const std::vector<int64_t>& srcStrides);

// result[r] = src[base + sum_d r[d] * srcStrides[d]] for every index r of `resultType`
// (strides may be zero or negative): broadcast, transpose, reverse and slices. A splat
// source gives a splat result.
Literal affineCopy(const Literal& src, const Type& resultType, int64_t base,
                   const std::vector<int64_t>& srcStrides);

}  // namespace kiln::interp
