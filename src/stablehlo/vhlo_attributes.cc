// VHLO's attributes as kiln's (see vhlo_attributes.h).
#include "stablehlo/vhlo_attributes.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "ir/attr_records.h"
#include "ir/attr_schema.h"
#include "ir/literal.h"
#include "support/error.h"

namespace kiln::stablehlo::bytecode {

namespace {

using Kind = DecodedAttribute::Kind;

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t at = 0; at < s.size();) {
    size_t end = s.find(' ', at);
    if (end == std::string_view::npos) end = s.size();
    if (end > at) out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// The attributes of a VHLO op (OpInfo::vhloAttrs) in the order its properties hold them:
// ODS sorts an op's attributes by name.
std::vector<std::string_view> propertyOrder(std::string_view attrs) {
  std::vector<std::string_view> names = words(attrs);
  std::sort(names.begin(), names.end());
  return names;
}

// VHLO's enum values are StableHLO's in order, but for rng_distribution, which counts from 1.
std::string enumText(const DecodedAttribute& a, const std::string& where) {
  const std::string enumName = "stablehlo." + a.enumKind;
  std::span<const std::string_view> values = enumValues(enumName);
  const uint64_t offset = a.enumKind == "rng_distribution" ? 1 : 0;
  if (a.value < offset || a.value - offset >= values.size())
    throw Error(ErrorKind::Parse, where + ": " + a.enumKind + " value " + std::to_string(a.value));
  return std::string(values[a.value - offset]);
}

// An integer's bits (a byte up to 8 bits wide, else sign-extended 64) as its value.
int64_t integerOf(uint64_t bits, DType type) {
  const int width = bitWidth(type);
  if (width >= 64) return static_cast<int64_t>(bits);
  const uint64_t mask = (uint64_t{1} << width) - 1;
  bits &= mask;
  if (isSignedInt(type) && width > 1 && (bits >> (width - 1)) != 0) bits |= ~mask;
  return static_cast<int64_t>(bits);
}

}  // namespace

size_t propertyCount(const OpInfo& info) { return words(info.vhloAttrs).size(); }

void VhloAttributes::fail(const std::string& message) const { throw Error(ErrorKind::Parse, name_ + ": " + message); }
void VhloAttributes::unsupported(const std::string& what) const {
  throw Error(ErrorKind::Unsupported, "unsupported: " + what + " (" + name_ + ")");
}

Literal VhloAttributes::literal(const DecodedAttribute& a, const std::string& what) {
  const Type type = types_.valueType(a.type, what);
  const int64_t n = type.numElements();
  const size_t width = static_cast<size_t>(storageBytes(type.dtype()));
  const auto* data = reinterpret_cast<const uint8_t*>(a.data.data());
  if (type.dtype() == DType::I1 && a.data.size() != static_cast<size_t>(n)) {
    // MLIR packs booleans eight to a byte; one byte 0x00 or 0xFF is a splat.
    if (a.data.size() == 1 && (data[0] == 0 || data[0] == 0xFF)) {
      const uint8_t v = data[0] ? 1 : 0;
      return Literal::splat(type, &v);
    }
    if (a.data.size() != static_cast<size_t>((n + 7) / 8)) fail(what + ": " + std::to_string(a.data.size()) + " bytes for " + type.str());
    std::vector<uint8_t> bytes(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) bytes[static_cast<size_t>(i)] = (data[i / 8] >> (i % 8)) & 1;
    return Literal::fromStorage(type, std::move(bytes));
  }
  if (a.data.size() == width && n != 1) return Literal::splat(type, data);
  if (a.data.size() != static_cast<size_t>(n) * width)
    fail(what + ": " + std::to_string(a.data.size()) + " bytes for " + type.str());
  return Literal::fromStorage(type, std::vector<uint8_t>(data, data + a.data.size()));
}

int64_t VhloAttributes::integer(const DecodedAttribute& a, const std::string& what) {
  if (a.kind == Kind::Enum) return static_cast<int64_t>(a.value);
  if (a.kind != Kind::Integer) fail(what + " is not an integer");
  return integerOf(a.bits, elementOf(a.type, what));
}

DType VhloAttributes::elementOf(uint64_t type, const std::string& what) {
  const DecodedType& t = types_.at(type);
  if (t.kind != DecodedType::Kind::Element) fail(what + " of other than an element type");
  return t.element;
}

std::vector<int64_t> VhloAttributes::integers(const DecodedAttribute& a, const std::string& what) {
  std::vector<int64_t> out;
  if (a.kind == Kind::Tensor) {
    Literal lit = literal(a, what);
    for (int64_t i = 0; i < lit.numElements(); ++i) out.push_back(lit.intAt(lit.isSplat() ? 0 : i));
  } else if (a.kind == Kind::Array) {
    for (uint64_t e : a.elements) out.push_back(integer(attrs_.at(e), what));
  } else {
    fail(what + " is not a list of integers");
  }
  return out;
}

// Any attribute as kiln's.
Attribute VhloAttributes::attribute(uint64_t index, const std::string& what) {
  const DecodedAttribute& a = attrs_.at(index);
  switch (a.kind) {
    case Kind::Array: {
      std::vector<Attribute> elements;
      for (uint64_t e : a.elements) elements.push_back(attribute(e, what));
      return Attribute::array(std::move(elements));
    }
    case Kind::Bool: return Attribute::boolean(a.boolean);
    case Kind::Enum:
      if (a.enumKind == "custom_call_api_version") return Attribute::integer(static_cast<int64_t>(a.value), DType::I32);
      return Attribute::enumValue("stablehlo." + a.enumKind, enumText(a, what));
    case Kind::Dictionary: {
      NamedAttrList entries;
      for (const auto& [key, value] : a.entries) setAttr(entries, attrs_.stringAt(key, what + "'s key"), attribute(value, what));
      return Attribute::dictionary(std::move(entries));
    }
    case Kind::Float: {
      const DType t = elementOf(a.type, what);
      Literal one(Type::scalar(t));
      one.setBits(0, a.bits);
      return Attribute::floating(one.floatAt(0), t);
    }
    case Kind::Integer: {
      const DType t = elementOf(a.type, what);
      if (t == DType::I1) return Attribute::boolean(a.bits != 0);
      return Attribute::integer(integerOf(a.bits, t), t);
    }
    case Kind::String: return Attribute::string(a.string);
    case Kind::SymbolRef: return Attribute::symbol(a.string);
    case Kind::Tensor: return Attribute::dense(literal(a, what));
    case Kind::Type: {
      const DecodedType& t = types_.at(a.type);
      if (t.kind == DecodedType::Kind::Element) return Attribute::elementType(t.element);
      return Attribute::type(types_.valueType(a.type, what));
    }
    case Kind::Unit: return Attribute::unit();
    case Kind::Indices:
      if (a.enumKind == "output_operand_alias") {
        // The output tuple indices, the operand, the operand tuple indices, flattened:
        // the operand is the one entry after the first list.
        return outputOperandAlias(index, what);
      }
      if (a.enumKind == "result_accuracy") return resultAccuracy(a, what);
      unsupported(what + ": " + a.enumKind + " as an attribute");
    case Kind::Location: fail(what + " is a location");
    case Kind::Text: return Attribute::opaque(a.string);
    case Kind::Unsupported: unsupported(what + ": " + a.unsupported);
  }
  fail(what + ": an attribute of unknown kind");
}

Attribute VhloAttributes::outputOperandAlias(uint64_t index, const std::string& what) {
  // Re-read the entry's three fields: the flattened integers lose where the lists end.
  const Entry& entry = c_.attributes[index];
  ByteReader r(entry.bytes, entry.offset, name_);
  r.varint("a VHLO attribute code");
  auto list = [&] {
    std::vector<int64_t> v;
    for (uint64_t i = 0, n = r.varint(what.c_str()); i < n && i <= entry.bytes.size(); ++i) v.push_back(r.signedVarint(what.c_str()));
    return v;
  };
  std::vector<int64_t> output = list();
  const int64_t operand = r.signedVarint(what.c_str());
  std::vector<int64_t> operandIndices = list();
  return makeRecord("stablehlo.output_operand_alias",
                    {{"output_tuple_indices", Attribute::i64Array(std::move(output))},
                     {"operand_index", Attribute::integer(operand)},
                     {"operand_tuple_indices", Attribute::i64Array(std::move(operandIndices))}});
}

Attribute VhloAttributes::resultAccuracy(const DecodedAttribute& a, const std::string& what) {
  auto f64 = [](int64_t bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  };
  const DecodedAttribute& mode = attrs_.at(a.elements.at(0));
  if (mode.kind != Kind::Enum) fail(what + ": a result accuracy's mode is not an enum");
  return makeRecord("stablehlo.result_accuracy",
                    {{"atol", Attribute::floating(f64(a.integers[0]))},
                     {"rtol", Attribute::floating(f64(a.integers[1]))},
                     {"ulps", Attribute::integer(a.integers[2])},
                     {"mode", Attribute::enumValue("stablehlo.result_accuracy_mode", enumText(mode, what))}});
}

// An op attribute of the kind its spec names (the parser coerces the rest).
Attribute VhloAttributes::forSpec(const AttrSpec& spec, uint64_t index, const std::string& what) {
  const DecodedAttribute& a = attrs_.at(index);
  switch (spec.kind) {
    case AttrKind::Int: return Attribute::integer(integer(a, what), spec.dtype);
    case AttrKind::I64Array: return Attribute::i64Array(integers(a, what));
    case AttrKind::BoolArray: {
      std::vector<bool> values;
      for (int64_t v : integers(a, what)) values.push_back(v != 0);
      return Attribute::boolArray(values);
    }
    case AttrKind::Unit:
      if (a.kind == Kind::Bool) return a.boolean ? Attribute::unit() : Attribute();
      break;
    case AttrKind::Symbol:
      if (a.kind == Kind::String) return Attribute::symbol(a.string);
      break;
    case AttrKind::SymbolArray:
      if (a.kind == Kind::Array) {
        std::vector<Attribute> symbols;
        for (uint64_t e : a.elements) symbols.push_back(Attribute::symbol(attrs_.stringAt(e, what)));
        return Attribute::array(std::move(symbols));
      }
      break;
    default: break;
  }
  return attribute(index, what);
}

Attribute VhloAttributes::forField(const RecordField& field, uint64_t index, const std::string& what) {
  const DecodedAttribute& a = attrs_.at(index);
  switch (field.kind) {
    case FieldKind::Int: return Attribute::integer(integer(a, what));
    case FieldKind::I64Array: return Attribute::i64Array(integers(a, what));
    default: return attribute(index, what);
  }
}

// Whether VHLO attribute `name` of VHLO op `op` holds its default, which StableHLO does
// not write (VhloLegalizeToStablehlo's removeDefaults, by name).
bool VhloAttributes::atDefault(std::string_view op, std::string_view name, const DecodedAttribute& a, const std::string& what) {
  auto allAre = [&](int64_t v) {
    for (int64_t x : integers(a, what))
      if (x != v) return false;
    return true;
  };
  switch (a.kind) {
    case Kind::Bool: return !a.boolean && name != "left_side" && name != "unit_diagonal";
    case Kind::String: return a.string.empty();
    case Kind::Dictionary: return a.entries.empty();
    case Kind::Integer:
      return ((name == "channel_id" || name == "version") && integer(a, what) == 0) ||
             (name == "dimension" && op == "sort_v1" && integer(a, what) == -1);
    case Kind::Enum: return (name == "compare_type" && a.value == 0) || (name == "api_version" && a.value == 1);
    case Kind::Indices: return a.enumKind == "result_accuracy" && a.integers == std::vector<int64_t>{0, 0, 0};
    case Kind::Array:
      if (name == "precision_config") {
        for (uint64_t e : a.elements)
          if (attrs_.at(e).kind != Kind::Enum || attrs_.at(e).value != 0) return false;
        return true;
      }
      return a.elements.empty() && name != "operand_layouts" && name != "result_layouts";
    case Kind::Tensor:
      if (types_.valueType(a.type, what).numElements() == 0)  // (empty dimension lists are values)
        return name == "known_expanding_dimensions" || name == "known_nonexpanding_dimensions" ||
               (name == "source_target_pairs" && op != "collective_permute_v1");
      // The window attributes of convolutions, reduce_window and select_and_scatter.
      if (std::optional<int64_t> fill = windowAttrFill(name)) return allAre(*fill);
      return false;
    default: return false;
  }
}

// A VHLO op's attributes as StableHLO's (see the file comment). `values` are in the
// order the properties hold them: sorted by name, as ODS lays out an op's properties.
NamedAttrList VhloAttributes::opAttributes(const OpInfo& info, const std::vector<uint64_t>& values, const std::string& what) {
  const std::vector<std::string_view> names = propertyOrder(info.vhloAttrs);
  NamedAttrList out;
  std::map<std::string, std::pair<std::string, NamedAttrList>> records;  // attribute -> (record kind, fields)
  bool hasChannelType = false;
  for (std::string_view n : names) hasChannelType |= n == "channel_type";
  // A custom call's layouts go together: both left out when both are empty.
  auto emptyArray = [&](std::string_view name) {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return attrs_.at(values[i]).kind == Kind::Array && attrs_.at(values[i]).elements.empty();
    return false;
  };
  const bool noLayouts = emptyArray("operand_layouts") && emptyArray("result_layouts");
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string name(names[i]);
    const DecodedAttribute& a = attrs_.at(values[i]);
    const std::string where = what + "'s " + name;
    const int64_t asInteger = a.kind == Kind::Integer ? integer(a, where) : 0;
    const AttrSpec* spec = info.findAttr(name);
    if (!(spec && spec->required) && atDefault(info.vhlo, name, a, where) && !(name == "channel_id" && hasChannelType)) continue;
    if (a.kind == Kind::Type && types_.at(a.type).kind == DecodedType::Kind::None) continue;  // an absent algorithm part
    if (noLayouts && (name == "operand_layouts" || name == "result_layouts")) continue;
    if (name == "channel_id" || name == "channel_type") {
      auto& [kind, fields] = records["channel_handle"];
      kind = "stablehlo.channel_handle";
      setAttr(fields, name == "channel_id" ? "handle" : "type", Attribute::integer(asInteger));
      continue;
    }
    if (spec) {
      if (Attribute value = forSpec(*spec, values[i], where)) setAttr(out, name, std::move(value));
      continue;
    }
    bool placed = false;
    for (const AttrSpec& s : info.attrs) {
      if (s.kind != AttrKind::Record) continue;
      const RecordSchema* schema = recordSchema(s.type);
      const RecordField* field = schema ? schema->find(name) : nullptr;
      if (!field) continue;
      auto& [kind, fields] = records[std::string(s.name)];
      kind = std::string(s.type);
      setAttr(fields, name, forField(*field, values[i], where));
      placed = true;
      break;
    }
    if (!placed) setAttr(out, name, attribute(values[i], where));
  }
  for (auto& [name, record] : records) setAttr(out, name, makeRecord(record.first, record.second));
  return out;
}

}  // namespace kiln::stablehlo::bytecode
