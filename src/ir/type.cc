// Type construction, comparison and spelling.
#include "ir/type.h"

#include <functional>

namespace kiln {

int64_t numElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Type Type::tuple(std::vector<Type> elements) {
  Type t(Kind::Tuple, DType::I1, {});
  t.elements_ = std::make_shared<const std::vector<Type>>(std::move(elements));
  return t;
}

const std::vector<Type>& Type::elements() const {
  static const std::vector<Type> kNone;
  return elements_ ? *elements_ : kNone;
}

bool Type::operator==(const Type& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::Tensor: return dtype_ == other.dtype_ && shape_ == other.shape_;
    case Kind::Tuple: return elements_ == other.elements_ || elements() == other.elements();
    case Kind::Token: return true;
  }
  return false;
}

size_t Type::hash() const {
  size_t h = static_cast<size_t>(kind_) * 31 + static_cast<size_t>(dtype_);
  for (int64_t d : shape_) h = h * 1000003 ^ std::hash<int64_t>()(d);
  for (const Type& e : elements()) h = h * 1000003 ^ e.hash();
  return h;
}

std::string Type::str() const {
  switch (kind_) {
    case Kind::Token: return "!stablehlo.token";
    case Kind::Tuple: return "tuple<" + kiln::str(elements()) + ">";
    case Kind::Tensor: {
      std::string s = "tensor<";
      for (int64_t d : shape_) s += std::to_string(d) + "x";
      s += name(dtype_);
      return s + ">";
    }
  }
  return "?";
}

std::string str(const TypeList& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) s += ", ";
    s += types[i].str();
  }
  return s;
}

}  // namespace kiln
