// The types of an MLIR bytecode file (bytecode_container.h) as kiln's: VHLO's encodings
// (StableHLO's VhloBytecode.cpp: a varint code, then the type's fields) decoded into
// element types, tensor, tuple and token types, and function signatures. Each entry is
// decoded when first asked for, as MLIR's reader does, so an entry only a type kiln does
// not have would need is never an error unless used; a type that refers to itself is a
// Parse error, as is an index out of range.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/type.h"
#include "stablehlo/bytecode_container.h"

namespace kiln::stablehlo::bytecode {

struct DecodedType {
  enum class Kind { Element, Value, Function, None, Unsupported };
  Kind kind = Kind::Unsupported;
  DType element = DType::F32;   // Element
  Type value;                   // Value: a tensor, a tuple or a token
  std::vector<Type> inputs, results;  // Function
  std::string unsupported;      // Unsupported: what the type is
};

class TypeTable {
 public:
  // `container` must outlive the table; `name` names the file in errors.
  TypeTable(const Container& container, const std::string& name);
  ~TypeTable();
  size_t size() const;
  // Entry `index`, decoded (once); throws Parse for bad bytes or a bad index.
  const DecodedType& at(uint64_t index);
  // Entry `index` as a value's type (an element type is its scalar tensor); throws
  // Unsupported naming the type for others, and `what` names the use in messages.
  Type valueType(uint64_t index, const std::string& what);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kiln::stablehlo::bytecode
