// Builder: creating ops at an insertion point.
#include "ir/builder.h"

#include "support/error.h"

namespace kiln {

Builder Builder::before(Op& op) {
  Region* region = op.parentRegion();
  if (!region) throw Error(ErrorKind::Internal, "Builder::before: the op is not in a region");
  Builder b(*region);
  b.pos_ = region->positionOf(&op);
  return b;
}

Op* Builder::create(OpCode code, const std::vector<Value*>& operands, const TypeList& resultTypes,
                    NamedAttrList attrs, size_t numRegions) {
  return region_->insert(pos_, Op::create(code, operands, resultTypes, std::move(attrs), numRegions, loc_));
}

Value* Builder::constant(Literal value) {
  Type type = value.type();
  return create(OpCode::Constant, {}, {type}, {{"value", Attribute::dense(std::move(value))}})->result();
}

Value* Builder::unary(OpCode code, Value* operand) {
  return create(code, {operand}, {operand->type()})->result();
}

Value* Builder::binary(OpCode code, Value* lhs, Value* rhs) {
  return create(code, {lhs, rhs}, {lhs->type()})->result();
}

Value* Builder::compare(std::string_view direction, Value* lhs, Value* rhs) {
  Type result = lhs->type().withDType(DType::I1);
  return create(OpCode::Compare, {lhs, rhs}, {result},
                {{"comparison_direction",
                  Attribute::enumValue("stablehlo.comparison_direction", std::string(direction))}})
      ->result();
}

void Builder::ret(const std::vector<Value*>& values, OpCode code) { create(code, values, {}); }

}  // namespace kiln
