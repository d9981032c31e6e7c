// VHLO's and the builtin dialect's attribute encodings (bytecode_attributes.h). The codes
// are VhloBytecode.cpp's AttributeCode and the order of BuiltinDialectBytecode.td's
// BuiltinDialectAttributes, which neither project renumbers.
#include "stablehlo/bytecode_attributes.h"

#include <optional>

#include "stablehlo/bytecode_sdy.h"
#include "support/error.h"

namespace kiln::stablehlo::bytecode {

namespace {

// VHLO's enum-valued attributes, by code.
const char* vhloEnum(uint64_t code) {
  switch (code) {
    case 3: return "comparison_direction";
    case 4: return "comparison_type";
    case 5: return "custom_call_api_version";
    case 7: return "fft_type";
    case 11: return "precision";
    case 12: return "rng_algorithm";
    case 13: return "rng_distribution";
    case 16: return "transpose";
    case 19: return "result_accuracy_mode";
  }
  return nullptr;
}

}  // namespace

struct AttributeTable::State {
  const Container& container;
  TypeTable& types;
  const std::string name;
  std::vector<std::optional<DecodedAttribute>> decoded;
  std::vector<bool> decoding;
};

AttributeTable::AttributeTable(const Container& container, TypeTable& types, const std::string& name)
    : state_(std::make_unique<State>(State{container, types, name, {}, {}})) {
  state_->decoded.resize(container.attributes.size());
  state_->decoding.resize(container.attributes.size(), false);
}

AttributeTable::~AttributeTable() = default;

size_t AttributeTable::size() const { return state_->decoded.size(); }

const DecodedAttribute& AttributeTable::at(uint64_t index) {
  State& s = *state_;
  if (index >= s.decoded.size())
    throw Error(ErrorKind::Parse, s.name + ": attribute " + std::to_string(index) + " of " +
                                      std::to_string(s.decoded.size()));
  if (s.decoded[index]) return *s.decoded[index];
  const Entry& entry = s.container.attributes[index];
  ByteReader r(entry.bytes, entry.offset, s.name);
  if (s.decoding[index]) r.fail("attribute " + std::to_string(index) + " refers to itself");
  s.decoding[index] = true;
  DecodedAttribute a;
  using Kind = DecodedAttribute::Kind;
  // What the entry's fields refer to, checked as they are read (and decoded: a cycle
  // through them is found here).
  auto attribute = [&](const char* what) {
    const uint64_t i = r.varint(what);
    at(i);
    return i;
  };
  auto type = [&](const char* what) {
    const uint64_t i = r.varint(what);
    s.types.at(i);
    return i;
  };
  auto count = [&](const char* what) {
    const uint64_t n = r.varint(what);
    if (n > entry.bytes.size()) r.fail(std::string(what) + ": " + std::to_string(n) + " of them");
    return n;
  };
  auto attributes = [&](const char* what) {
    std::vector<uint64_t> list;
    for (uint64_t i = 0, n = count(what); i < n; ++i) list.push_back(attribute(what));
    return list;
  };
  auto signedList = [&](const char* what) {
    std::vector<int64_t> list;
    for (uint64_t i = 0, n = count(what); i < n; ++i) list.push_back(r.signedVarint(what));
    return list;
  };
  auto string = [&](const char* what) {
    const uint64_t i = r.varint(what);
    if (i >= s.container.strings.size()) r.fail(std::string(what) + " names string " + std::to_string(i));
    return s.container.strings[i];
  };
  // An integer or float of the type's width: a byte up to 8 bits, a signed varint up to
  // 64 (wider values are not kiln's).
  auto valueOfType = [&](uint64_t typeIndex, const char* what) {
    const DecodedType& t = s.types.at(typeIndex);
    if (t.kind != DecodedType::Kind::Element) r.fail(std::string(what) + " of other than an element type");
    const int width = info(t.element).bits;
    if (width <= 8) return static_cast<uint64_t>(r.byte(what));
    if (width <= 64) return static_cast<uint64_t>(r.signedVarint(what));
    r.fail(std::string(what) + " of " + std::to_string(width) + " bits");
  };
  auto blob = [&](const char* what) { return r.bytes(r.varint(what), what); };
  const std::string& dialect = s.container.dialects[entry.dialect].name;
  if (!entry.custom) {
    a.kind = Kind::Text;
    a.string = a.inner = std::string(r.nulTerminated("an attribute's text"));
  } else if (dialect == "sdy") {
    // Inside Shardy's attributes: names as strings, meshes by reference, others by their text.
    auto nested = [&](uint64_t i) {
      const DecodedAttribute& n = at(i);
      if (n.kind == Kind::SymbolRef) return SdyText{"@" + n.string, "@" + n.string};
      if (n.kind == Kind::String) return SdyText{quotedText(n.string), quotedText(n.string)};
      if (n.kind == Kind::Text) return SdyText{n.string, n.inner};
      r.fail("a Shardy attribute holding attribute " + std::to_string(i) + ", which is neither a string nor Shardy's");
    };
    try {
      const SdyText text = readSdyAttribute(r, nested, [&](uint64_t i) -> const std::string& {
        if (i >= s.container.strings.size()) r.fail("a Shardy attribute names string " + std::to_string(i));
        return s.container.strings[i];
      });
      a.kind = Kind::Text;
      a.string = text.text;
      a.inner = text.inner;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Unsupported) throw;
      a.unsupported = e.message();  // an error where it is used, not where it is held
    }
  } else if (dialect == "vhlo") {
    const uint64_t code = r.varint("a VHLO attribute code");
    if (const char* kind = vhloEnum(code)) {
      a.kind = Kind::Enum;
      a.enumKind = kind;
      a.value = r.varint(kind);
    } else if (code == 1) {
      a.kind = Kind::Array;
      a.elements = attributes("an array's elements");
    } else if (code == 2) {
      a.kind = Kind::Bool;
      const uint64_t v = r.varint("a boolean");
      if (v > 1) r.fail("a boolean of " + std::to_string(v));
      a.boolean = v == 1;
    } else if (code == 6) {
      a.kind = Kind::Dictionary;
      for (uint64_t i = 0, n = count("a dictionary's entries"); i < n; ++i) {
        const uint64_t key = attribute("a dictionary key");
        a.entries.emplace_back(key, attribute("a dictionary value"));
      }
    } else if (code == 8 || code == 9) {
      a.kind = code == 8 ? Kind::Float : Kind::Integer;
      a.type = type("a number's type");
      a.bits = valueOfType(a.type, code == 8 ? "a float" : "an integer");
    } else if (code == 10) {  // output_operand_alias: output tuple indices, operand, operand tuple indices
      a.kind = Kind::Indices;
      a.enumKind = "output_operand_alias";
      a.integers = signedList("output tuple indices");
      a.integers.push_back(r.signedVarint("an operand index"));
      for (int64_t i : signedList("operand tuple indices")) a.integers.push_back(i);
    } else if (code == 14) {
      a.kind = Kind::String;
      a.string = string("a string");
    } else if (code == 15) {
      a.kind = Kind::Tensor;
      a.type = type("a tensor's type");
      a.data = blob("a tensor's data");
    } else if (code == 17) {
      a.kind = Kind::Type;
      a.type = type("a type attribute");
    } else if (code == 18) {
      a.kind = Kind::Indices;
      a.enumKind = "type_extensions";
      a.integers = signedList("a tensor's bounds");
    } else if (code == 20) {  // result_accuracy: atol and rtol (f64 bits), ulps, its mode
      a.kind = Kind::Indices;
      a.enumKind = "result_accuracy";
      a.integers = {r.signedVarint("an atol"), r.signedVarint("an rtol"), r.signedVarint("ulps")};
      a.elements = {attribute("a result accuracy's mode")};
    } else {
      r.fail("VHLO attribute code " + std::to_string(code) + ", which StableHLO does not have");
    }
  } else if (dialect == "builtin") {
    const uint64_t code = r.varint("a builtin attribute code");
    switch (code) {
      case 0:
        a.kind = Kind::Array;
        a.elements = attributes("an array's elements");
        break;
      case 1:
        a.kind = Kind::Dictionary;
        for (uint64_t i = 0, n = count("a dictionary's entries"); i < n; ++i) {
          const uint64_t key = attribute("a dictionary key");
          a.entries.emplace_back(key, attribute("a dictionary value"));
        }
        break;
      case 2:
      case 3:
        a.kind = Kind::String;
        a.string = string("a string");
        if (code == 3) a.type = type("a string's type");
        break;
      case 4:
        a.kind = Kind::SymbolRef;
        a.string = stringAt(attribute("a symbol reference"), "a symbol reference");
        break;
      case 6:
        a.kind = Kind::Type;
        a.type = type("a type attribute");
        break;
      case 7: a.kind = Kind::Unit; break;
      case 8:
      case 9:
        a.kind = code == 9 ? Kind::Float : Kind::Integer;
        a.type = type("a number's type");
        a.bits = valueOfType(a.type, code == 9 ? "a float" : "an integer");
        break;
      case 10:  // call site: callee, caller
        a.kind = Kind::Location;
        a.enumKind = "callsite";
        a.elements = {attribute("a call site's callee"), attribute("a call site's caller")};
        break;
      case 11:  // a file position (before FileLineColRange): the file, its line and column
        a.kind = Kind::Location;
        a.enumKind = "file";
        a.string = stringAt(attribute("a location's file"), "a location's file");
        a.integers = {static_cast<int64_t>(r.varint("a location's line")),
                      static_cast<int64_t>(r.varint("a location's column"))};
        break;
      case 22: {  // FileLineColRange: the file, then how many of line, column, (end line,) end column
        a.kind = Kind::Location;
        a.enumKind = "file";
        a.string = stringAt(attribute("a location's file"), "a location's file");
        const uint64_t n = r.varint("a location's number count");
        if (n > 4) r.fail("a location of " + std::to_string(n) + " numbers");
        for (uint64_t i = 0; i < n; ++i) a.integers.push_back(static_cast<int64_t>(r.varint("a location's line or column")));
        break;
      }
      case 12:
      case 13:
        a.kind = Kind::Location;
        a.enumKind = "fused";
        a.elements = attributes("a fused location's parts");
        if (code == 13) attribute("a fused location's metadata");
        break;
      case 14:
        a.kind = Kind::Location;
        a.enumKind = "name";
        a.string = stringAt(attribute("a location's name"), "a location's name");
        a.elements = {attribute("a named location's child")};
        break;
      case 15:
        a.kind = Kind::Location;
        a.enumKind = "unknown";
        break;
      case 17:
      case 18:
        a.kind = Kind::Tensor;
        a.type = type("dense elements' type");
        if (code == 17) a.value = r.varint("a dense array's size");
        a.data = blob("dense elements' data");
        break;
      default:
        a.unsupported = "builtin attribute " + std::to_string(code) +
                        " (symbol references with nested ones, dense resources and strings, sparse or distinct attributes)";
    }
  } else {
    a.unsupported = "an attribute of dialect " + dialect;
  }
  s.decoding[index] = false;
  s.decoded[index] = std::move(a);
  return *s.decoded[index];
}

const std::string& AttributeTable::stringAt(uint64_t index, const std::string& what) {
  const DecodedAttribute& a = at(index);
  if (a.kind != DecodedAttribute::Kind::String && a.kind != DecodedAttribute::Kind::SymbolRef)
    throw Error(ErrorKind::Parse, state_->name + ": " + what + " is not a string (attribute " + std::to_string(index) + ")");
  return a.string;
}

}  // namespace kiln::stablehlo::bytecode
