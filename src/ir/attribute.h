// Attributes: the typed, immutable static data of ops, functions and modules
// (integers, floats, enums, arrays, dense literals, dimension-number records, ...).
// Copying an Attribute copies a pointer; equal attributes compare and hash equal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/literal.h"
#include "ir/type.h"

namespace kiln {

class Attribute;
struct NamedAttribute;
using NamedAttrList = std::vector<NamedAttribute>;  // kept sorted by name

class Attribute {
 public:
  enum class Kind : uint8_t {
    None,        // absent
    Unit,        // a name without a value: {has_side_effect}
    Bool,        // true / false
    Integer,     // 3 : i64 (the dtype says how it was typed; plain 3 is i64)
    Float,       // 1.0 : f32
    String,      // "text"
    TypeRef,     // a type: tensor<2xf32>, or an element type: tf32
    Dense,       // dense<...> : tensor<...>
    DenseArray,  // array<i64: 1, 2>
    Array,       // [a, b, c]
    Dictionary,  // {a = 1, b = 2}
    SymbolRef,   // @callee (nested references as @a::@b)
    Enum,        // #stablehlo<comparison_direction LT>: enum name + value
    Record,      // #stablehlo.gather<offset_dims = [1], ...>: a named list of fields
    Opaque,      // a dialect attribute kiln does not model, kept verbatim: #sdy.sharding<...>
  };

  Attribute() = default;
  static Attribute unit();
  static Attribute boolean(bool value);
  static Attribute integer(int64_t value, DType type = DType::I64);
  static Attribute index(int64_t value);  // MLIR's `index` type
  static Attribute floating(double value, DType type = DType::F64);
  static Attribute string(std::string value);
  static Attribute type(Type type);
  static Attribute elementType(DType dtype);
  static Attribute dense(Literal literal);
  static Attribute i64Array(std::vector<int64_t> values);
  static Attribute boolArray(const std::vector<bool>& values);
  static Attribute intArray(DType elementType, std::vector<int64_t> values);
  static Attribute floatArray(DType elementType, std::vector<double> values);
  static Attribute array(std::vector<Attribute> elements);
  static Attribute dictionary(NamedAttrList entries);
  static Attribute symbol(std::string name, std::vector<std::string> nested = {});
  static Attribute enumValue(std::string enumName, std::string value);
  static Attribute record(std::string recordName, NamedAttrList fields);
  static Attribute opaque(std::string text);

  Kind kind() const;
  explicit operator bool() const { return kind() != Kind::None; }
  bool is(Kind k) const { return kind() == k; }

  // Accessors; each requires the matching kind.
  bool asBool() const;
  int64_t asInt() const;              // Integer
  double asFloat() const;             // Float
  DType dtype() const;                // Integer/Float: its type; DenseArray: element type;
                                      // TypeRef of an element type: that type
  bool isIndex() const;               // Integer of MLIR `index` type
  const std::string& asString() const;  // String, Opaque text, SymbolRef root, Record name
  const Type& asType() const;         // TypeRef
  bool isElementType() const;         // TypeRef holding only an element type
  const Literal& asDense() const;     // Dense
  const std::vector<int64_t>& asInts() const;  // DenseArray of integers/bools
  const std::vector<double>& asFloats() const; // DenseArray of floats
  const std::vector<Attribute>& asArray() const;
  const NamedAttrList& fields() const;         // Dictionary, Record
  const std::string& enumName() const;         // Enum
  const std::string& enumValueName() const;    // Enum
  const std::vector<std::string>& nestedSymbols() const;  // SymbolRef

  // Dictionary/Record field lookup; None when absent.
  Attribute field(std::string_view name) const;

  bool operator==(const Attribute& other) const;
  bool operator!=(const Attribute& other) const { return !(*this == other); }
  size_t hash() const;

 private:
  struct Node;
  explicit Attribute(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  static Attribute make(Node node);
  std::shared_ptr<const Node> node_;
};

struct NamedAttribute {
  std::string name;
  Attribute value;
  bool operator==(const NamedAttribute& o) const { return name == o.name && value == o.value; }
};

// Sorted-list helpers shared by ops, functions and modules.
Attribute findAttr(const NamedAttrList& list, std::string_view name);
void setAttr(NamedAttrList& list, std::string name, Attribute value);
bool removeAttr(NamedAttrList& list, std::string_view name);

}  // namespace kiln
