// Host literals: typed, dense, row-major n-d buffers. The constant data of the IR and,
// later, the values the interpreter computes.
//
// Storage per element (storageBytes of the dtype, little-endian on this host):
//   i1 one byte 0/1; 2- and 4-bit integers one byte holding the value (sign-extended for
//   signed types); small floats one byte with the format's bits in the low bits;
//   f16/bf16 two bytes; tf32 the 19-bit pattern in four bytes; complex: real then imag.
// A splat literal stores one element and stands for a tensor where all are equal, so
// large constant fills cost nothing until someone writes to them.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "ir/type.h"

namespace kiln {

class Literal {
 public:
  Literal() = default;
  // A zero-filled tensor of `type`.
  explicit Literal(Type type);
  // A tensor of `type` whose elements all equal `element` (storageBytes bytes).
  static Literal splat(Type type, const uint8_t* element);
  // A tensor of `type` with the given storage (size must be numElements * storageBytes).
  static Literal fromStorage(Type type, std::vector<uint8_t> bytes);

  const Type& type() const { return type_; }
  DType dtype() const { return type_.dtype(); }
  const Shape& shape() const { return type_.shape(); }
  int64_t numElements() const { return type_.numElements(); }
  bool isSplat() const { return splat_; }

  // The raw storage: one element when splat, all elements otherwise.
  const uint8_t* storage() const { return bytes_ ? bytes_->data() : nullptr; }
  size_t storageSize() const { return bytes_ ? bytes_->size() : 0; }
  // Writable storage of every element; expands a splat and unshares the buffer.
  uint8_t* mutableStorage();
  // Every element's bytes in row-major order, for code that reads raw buffers: a splat of
  // more than one element is expanded in place first; other storage is returned as it
  // is, never copied (unlike mutableStorage, shared storage stays shared).
  const uint8_t* denseStorage();

  // Element access by row-major linear index. The raw accessors move storage bits;
  // the typed ones convert (intAt sign- or zero-extends, floatAt decodes the format).
  uint64_t bitsAt(int64_t i) const;
  void setBits(int64_t i, uint64_t bits);
  int64_t intAt(int64_t i) const;
  uint64_t uintAt(int64_t i) const { return bitsAt(i); }
  bool boolAt(int64_t i) const { return bitsAt(i) != 0; }
  double floatAt(int64_t i) const;                 // floats
  std::complex<double> complexAt(int64_t i) const; // complex
  void setInt(int64_t i, int64_t v);               // integers and i1 (wraps to the width)
  void setFloat(int64_t i, double v);              // floats, rounding to the format
  void setComplex(int64_t i, std::complex<double> v);

  // Whether no other Literal shares this one's storage (so mutableStorage will not copy).
  bool ownsStorageAlone() const { return bytes_ && bytes_.use_count() == 1; }
  // How many Literals share this one's storage (itself included; 0 without storage).
  long storageOwners() const { return bytes_ ? bytes_.use_count() : 0; }

  // True when every element has the same bits (a splat, or a full tensor that could be).
  bool allElementsEqual() const;

  // Bitwise equality of type and elements (splat and non-splat forms compare equal).
  bool operator==(const Literal& other) const;
  size_t hash() const;

 private:
  Type type_;
  bool splat_ = false;
  std::shared_ptr<std::vector<uint8_t>> bytes_;
};

}  // namespace kiln
