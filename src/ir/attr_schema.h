// The dialect attribute kinds: enums (#stablehlo<comparison_direction LT>) and records
// (#stablehlo.gather<...>), with their allowed values and fields, written once.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "ir/attribute.h"

namespace kiln {

// Allowed values of an enum ("stablehlo.comparison_direction" -> EQ, NE, ...); empty
// when the enum is unknown.
std::span<const std::string_view> enumValues(std::string_view enumName);
bool isEnumValue(std::string_view enumName, std::string_view value);

enum class FieldKind : uint8_t { Int, I64Array, Bool, Float, ElementType, Enum };

struct RecordField {
  std::string_view name;
  FieldKind kind;
  Attribute defaultValue;        // used when the field is absent from the text
  bool omitWhenDefault = false;  // the printer leaves it out when it equals the default
  std::string_view enumName = {};
};

struct RecordSchema {
  std::string_view name;  // "stablehlo.gather"
  std::vector<RecordField> fields;  // in printing order
  const RecordField* find(std::string_view field) const;
};

// The schema of a record kind, or null when kiln does not model it.
const RecordSchema* recordSchema(std::string_view recordName);

// A record of kind `recordName` with every field of its schema, in schema order (the one
// form the parser and the typed records both build, so they compare equal): each field
// from `values` (any order), else its default.
Attribute makeRecord(std::string_view recordName, const NamedAttrList& values);

// Reads a field of a record, falling back to the schema default.
Attribute recordField(const Attribute& record, std::string_view field);
// Integer-list and integer fields of records (the common case: dimension numbers).
std::vector<int64_t> recordInts(const Attribute& record, std::string_view field);
int64_t recordInt(const Attribute& record, std::string_view field);

}  // namespace kiln
