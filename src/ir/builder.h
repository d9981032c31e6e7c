// Building IR from C++: an insertion point plus helpers that create ops.
#pragma once

#include "ir/module.h"

namespace kiln {

class Builder {
 public:
  // Inserts at the end of `region`.
  explicit Builder(Region& region) : region_(&region), pos_(region.ops().end()) {}
  // Inserts before `op` in its region.
  static Builder before(Op& op);

  Region& region() const { return *region_; }
  void setLocation(Location loc) { loc_ = std::move(loc); }

  // The general form: any op, with explicit result types.
  Op* create(OpCode code, const std::vector<Value*>& operands, const TypeList& resultTypes,
             NamedAttrList attrs = {}, size_t numRegions = 0);

  // Common ops whose result type follows from the operands.
  Value* constant(Literal value);
  Value* unary(OpCode code, Value* operand);             // result type = operand type
  Value* binary(OpCode code, Value* lhs, Value* rhs);    // result type = lhs type
  Value* compare(std::string_view direction, Value* lhs, Value* rhs);
  void ret(const std::vector<Value*>& values, OpCode code = OpCode::Return);

 private:
  Region* region_;
  Region::iterator pos_;
  Location loc_;
};

}  // namespace kiln
