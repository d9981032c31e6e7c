// Value types: ranked tensors with static shapes, tuples and tokens.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace kiln {

using Shape = std::vector<int64_t>;

// Number of elements of a shape (1 for rank 0).
int64_t numElements(const Shape& shape);

// A value type. Tensors are the common case and are stored inline; tuples keep their
// element types behind a shared pointer so copying any Type stays cheap.
class Type {
 public:
  enum class Kind : uint8_t { Tensor, Tuple, Token };

  Type() = default;  // tensor<f32> scalar; exists so containers can default-construct
  static Type tensor(DType dtype, Shape shape) { return Type(Kind::Tensor, dtype, std::move(shape)); }
  static Type scalar(DType dtype) { return tensor(dtype, {}); }
  static Type tuple(std::vector<Type> elements);
  static Type token() { return Type(Kind::Token, DType::I1, {}); }

  Kind kind() const { return kind_; }
  bool isTensor() const { return kind_ == Kind::Tensor; }
  bool isTuple() const { return kind_ == Kind::Tuple; }
  bool isToken() const { return kind_ == Kind::Token; }

  // Tensor accessors (only meaningful for tensors).
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t numElements() const { return kiln::numElements(shape_); }
  // Bytes of a dense row-major buffer holding the tensor.
  int64_t byteSize() const { return numElements() * storageBytes(dtype_); }

  // Tuple accessor.
  const std::vector<Type>& elements() const;

  // The same shape with another element type.
  Type withDType(DType dtype) const { return tensor(dtype, shape_); }

  bool operator==(const Type& other) const;
  bool operator!=(const Type& other) const { return !(*this == other); }
  size_t hash() const;

  // MLIR spelling: tensor<2x3xf32>, tuple<tensor<i1>, !stablehlo.token>, !stablehlo.token.
  std::string str() const;

 private:
  Type(Kind kind, DType dtype, Shape shape) : kind_(kind), dtype_(dtype), shape_(std::move(shape)) {}

  Kind kind_ = Kind::Tensor;
  DType dtype_ = DType::F32;
  Shape shape_;
  std::shared_ptr<const std::vector<Type>> elements_;
};

using TypeList = std::vector<Type>;
std::string str(const TypeList& types);  // "a, b, c"

}  // namespace kiln
