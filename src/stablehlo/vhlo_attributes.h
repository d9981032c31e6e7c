// VHLO's attributes as kiln's (part of reading a portable artifact, bytecode.h): any
// attribute of the artifact's table as a kiln Attribute, and a VHLO op's properties as
// the StableHLO op's attributes. Those become StableHLO's: the fields of a record (dot,
// gather, scatter and convolution dimension numbers, a dot algorithm) gathered into it,
// channel ids into channel handles, booleans into unit attributes, tensors into the op's
// arrays, and the attributes VHLO writes at their defaults left out, as StableHLO's own
// conversion (VhloLegalizeToStablehlo) leaves them out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attribute.h"
#include "ir/op_registry.h"
#include "stablehlo/bytecode_attributes.h"
#include "stablehlo/bytecode_container.h"
#include "stablehlo/bytecode_types.h"

namespace kiln::stablehlo::bytecode {

// How many properties (attributes) VHLO op `info` holds: OpInfo::vhloAttrs's words.
size_t propertyCount(const OpInfo& info);

class VhloAttributes {
 public:
  // The tables must outlive this; `name` names the file in errors.
  VhloAttributes(const Container& c, TypeTable& types, AttributeTable& attrs, const std::string& name)
      : c_(c), name_(name), types_(types), attrs_(attrs) {}

  // Attribute `index` of the table as kiln's; `what` names it in errors.
  Attribute attribute(uint64_t index, const std::string& what);
  // The StableHLO attributes of an op of `info` whose properties are `values` (attribute
  // indices, in property order: sorted by name, as ODS lays out an op's properties).
  NamedAttrList opAttributes(const OpInfo& info, const std::vector<uint64_t>& values, const std::string& what);

 private:
  using Kind = DecodedAttribute::Kind;
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void unsupported(const std::string& what) const;

  Literal literal(const DecodedAttribute& a, const std::string& what);
  int64_t integer(const DecodedAttribute& a, const std::string& what);
  DType elementOf(uint64_t type, const std::string& what);
  std::vector<int64_t> integers(const DecodedAttribute& a, const std::string& what);
  Attribute outputOperandAlias(uint64_t index, const std::string& what);
  Attribute resultAccuracy(const DecodedAttribute& a, const std::string& what);
  Attribute forSpec(const AttrSpec& spec, uint64_t index, const std::string& what);
  Attribute forField(const RecordField& field, uint64_t index, const std::string& what);
  bool atDefault(std::string_view op, std::string_view name, const DecodedAttribute& a, const std::string& what);

  const Container& c_;
  const std::string& name_;
  TypeTable& types_;
  AttributeTable& attrs_;
};

}  // namespace kiln::stablehlo::bytecode
