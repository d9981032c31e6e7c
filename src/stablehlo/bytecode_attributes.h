// The attributes of an MLIR bytecode file (bytecode_container.h), decoded from VHLO's
// encodings (StableHLO's VhloBytecode.cpp AttributeCode) and the builtin dialect's (MLIR's
// BuiltinDialectBytecode.td) into their fields: other attributes and types by index, the
// values of integers and floats as bits, strings, a tensor's raw data. Turning them into
// kiln's attributes is the reader of each op's (it knows what the op expects). Each entry
// is decoded when first asked for; one that refers to itself, an index out of range and
// bad bytes are Parse errors.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stablehlo/bytecode_types.h"

namespace kiln::stablehlo::bytecode {

struct DecodedAttribute {
  enum class Kind {
    Array,       // elements
    Bool,        // boolean
    Enum,        // enumKind, value (comparison_direction, precision, ...)
    Dictionary,  // entries: (name attribute, value attribute)
    Float,       // type, bits
    Integer,     // type, bits (sign-extended to 64)
    String,      // string
    SymbolRef,   // string: the referenced symbol
    Tensor,      // type, data (row-major, as MLIR's dense elements hold them)
    Type,        // type
    Unit,
    Indices,     // integers: a TypeExtensions' bounds, an OutputOperandAlias' fields
    Location,    // a source location (name, children, or a file position)
    Text,        // another dialect's attribute as MLIR text: string (its own), inner (inside
                 // its dialect's other attributes): the textual fallback, and Shardy's
    Unsupported, // unsupported: what it is
  };
  Kind kind = Kind::Unsupported;
  std::vector<uint64_t> elements;
  std::vector<std::pair<uint64_t, uint64_t>> entries;
  bool boolean = false;
  std::string enumKind;
  uint64_t value = 0;
  uint64_t type = 0;
  uint64_t bits = 0;
  std::string string;
  std::string inner;
  std::string_view data;
  std::vector<int64_t> integers;
  std::string unsupported;
};

class AttributeTable {
 public:
  // `container` and `types` must outlive the table; `name` names the file in errors.
  AttributeTable(const Container& container, TypeTable& types, const std::string& name);
  ~AttributeTable();
  size_t size() const;
  const DecodedAttribute& at(uint64_t index);
  // Entry `index` as a string (a String or SymbolRef); throws Parse for another kind.
  const std::string& stringAt(uint64_t index, const std::string& what);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kiln::stablehlo::bytecode
