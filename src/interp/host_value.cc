// HostValue accessors and summaries.
#include "interp/host_value.h"

#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::interp {

HostValue HostValue::tuple(std::vector<HostValue> elements) {
  HostValue v;
  v.v_ = std::make_shared<const std::vector<HostValue>>(std::move(elements));
  return v;
}

const Literal& HostValue::tensor() const {
  if (!isTensor()) throw Error(ErrorKind::Internal, "value is not a tensor");
  return std::get<Literal>(v_);
}

Literal& HostValue::tensor() {
  if (!isTensor()) throw Error(ErrorKind::Internal, "value is not a tensor");
  return std::get<Literal>(v_);
}

const std::vector<HostValue>& HostValue::elements() const {
  if (!isTuple()) throw Error(ErrorKind::Internal, "value is not a tuple");
  return *std::get<Tuple>(v_);
}

Type HostValue::type() const {
  if (isTensor()) return tensor().type();
  if (isToken()) return Type::token();
  std::vector<Type> types;
  for (const HostValue& e : elements()) types.push_back(e.type());
  return Type::tuple(std::move(types));
}

std::string HostValue::summary(size_t maxElements) const {
  if (!isTensor()) return type().str();
  const Literal& lit = tensor();
  std::string s = lit.type().str() + " [";
  int64_t n = lit.numElements();
  for (int64_t i = 0; i < n && i < static_cast<int64_t>(maxElements); ++i) {
    if (i) s += ", ";
    DType t = lit.dtype();
    switch (kindOf(t)) {
      case DTypeKind::Bool: s += lit.boolAt(i) ? "true" : "false"; break;
      case DTypeKind::Signed: s += std::to_string(lit.intAt(i)); break;
      case DTypeKind::Unsigned: s += std::to_string(lit.uintAt(i)); break;
      case DTypeKind::Float: s += stablehlo::printFloat(lit.floatAt(i), t); break;
      case DTypeKind::Complex: {
        auto c = lit.complexAt(i);
        s += "(" + stablehlo::printFloat(c.real(), complexPart(t)) + ", " +
             stablehlo::printFloat(c.imag(), complexPart(t)) + ")";
      }
    }
  }
  if (n > static_cast<int64_t>(maxElements)) s += ", ...";
  return s + "]";
}

}  // namespace kiln::interp
