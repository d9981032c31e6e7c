// Attribute storage, construction and structural equality.
#include "ir/attribute.h"

#include <algorithm>
#include <bit>

#include "support/error.h"

namespace kiln {
namespace {

struct StringPair {
  std::string first, second;
  bool operator==(const StringPair&) const = default;
};
struct Symbol {
  std::string root;
  std::vector<std::string> nested;
  bool operator==(const Symbol&) const = default;
};
struct TypePayload {
  Type type;
  bool elementOnly;
  bool operator==(const TypePayload&) const = default;
};
struct RecordPayload {
  std::string name;
  NamedAttrList fields;
  bool operator==(const RecordPayload&) const = default;
};

// Floats compare by bits: -0.0 and 0.0 are different attributes, and NaN equals itself.
bool sameBits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

}  // namespace

struct Attribute::Node {
  Kind kind;
  DType dtype = DType::I64;
  bool flag = false;  // Integer: index type
  std::variant<std::monostate, bool, int64_t, double, std::string, TypePayload, Literal,
               std::vector<int64_t>, std::vector<double>, std::vector<Attribute>, NamedAttrList,
               Symbol, StringPair, RecordPayload>
      payload;
};

Attribute Attribute::make(Node node) {
  return Attribute(std::make_shared<const Node>(std::move(node)));
}

Attribute Attribute::unit() { return make({Kind::Unit, DType::I64, false, std::monostate{}}); }
Attribute Attribute::boolean(bool v) { return make({Kind::Bool, DType::I1, false, v}); }
Attribute Attribute::integer(int64_t v, DType t) { return make({Kind::Integer, t, false, v}); }
Attribute Attribute::index(int64_t v) { return make({Kind::Integer, DType::I64, true, v}); }
Attribute Attribute::floating(double v, DType t) { return make({Kind::Float, t, false, v}); }
Attribute Attribute::string(std::string v) {
  return make({Kind::String, DType::I64, false, std::move(v)});
}
Attribute Attribute::type(Type t) {
  return make({Kind::TypeRef, DType::I64, false, TypePayload{std::move(t), false}});
}
Attribute Attribute::elementType(DType d) {
  return make({Kind::TypeRef, d, false, TypePayload{Type::scalar(d), true}});
}
Attribute Attribute::dense(Literal lit) {
  return make({Kind::Dense, lit.dtype(), false, std::move(lit)});
}
Attribute Attribute::i64Array(std::vector<int64_t> v) { return intArray(DType::I64, std::move(v)); }
Attribute Attribute::boolArray(const std::vector<bool>& v) {
  return intArray(DType::I1, std::vector<int64_t>(v.begin(), v.end()));
}
Attribute Attribute::intArray(DType t, std::vector<int64_t> v) {
  return make({Kind::DenseArray, t, false, std::move(v)});
}
Attribute Attribute::floatArray(DType t, std::vector<double> v) {
  return make({Kind::DenseArray, t, false, std::move(v)});
}
Attribute Attribute::array(std::vector<Attribute> v) {
  return make({Kind::Array, DType::I64, false, std::move(v)});
}
Attribute Attribute::dictionary(NamedAttrList entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const NamedAttribute& a, const NamedAttribute& b) { return a.name < b.name; });
  return make({Kind::Dictionary, DType::I64, false, std::move(entries)});
}
Attribute Attribute::symbol(std::string name, std::vector<std::string> nested) {
  return make({Kind::SymbolRef, DType::I64, false, Symbol{std::move(name), std::move(nested)}});
}
Attribute Attribute::enumValue(std::string enumName, std::string value) {
  return make({Kind::Enum, DType::I64, false, StringPair{std::move(enumName), std::move(value)}});
}
Attribute Attribute::record(std::string name, NamedAttrList fields) {
  // Record fields keep their declared order: it is part of the syntax.
  return make({Kind::Record, DType::I64, false, RecordPayload{std::move(name), std::move(fields)}});
}
Attribute Attribute::opaque(std::string text) {
  return make({Kind::Opaque, DType::I64, false, std::move(text)});
}

Attribute::Kind Attribute::kind() const { return node_ ? node_->kind : Kind::None; }

namespace {
[[noreturn]] void wrongKind(const char* wanted) {
  throw Error(ErrorKind::Internal, std::string("attribute accessed as ") + wanted);
}
const std::string kNoString;
}  // namespace

bool Attribute::asBool() const {
  if (kind() != Kind::Bool) wrongKind("bool");
  return std::get<bool>(node_->payload);
}
int64_t Attribute::asInt() const {
  if (kind() != Kind::Integer) wrongKind("integer");
  return std::get<int64_t>(node_->payload);
}
double Attribute::asFloat() const {
  if (kind() != Kind::Float) wrongKind("float");
  return std::get<double>(node_->payload);
}
DType Attribute::dtype() const {
  if (!node_) wrongKind("typed");
  return node_->dtype;
}
bool Attribute::isIndex() const { return kind() == Kind::Integer && node_->flag; }
const std::string& Attribute::asString() const {
  switch (kind()) {
    case Kind::String:
    case Kind::Opaque: return std::get<std::string>(node_->payload);
    case Kind::SymbolRef: return std::get<Symbol>(node_->payload).root;
    case Kind::Record: return std::get<RecordPayload>(node_->payload).name;
    default: wrongKind("string");
  }
}
const Type& Attribute::asType() const {
  if (kind() != Kind::TypeRef) wrongKind("type");
  return std::get<TypePayload>(node_->payload).type;
}
bool Attribute::isElementType() const {
  return kind() == Kind::TypeRef && std::get<TypePayload>(node_->payload).elementOnly;
}
const Literal& Attribute::asDense() const {
  if (kind() != Kind::Dense) wrongKind("dense");
  return std::get<Literal>(node_->payload);
}
const std::vector<int64_t>& Attribute::asInts() const {
  if (kind() != Kind::DenseArray || isFloat(node_->dtype)) wrongKind("integer array");
  return std::get<std::vector<int64_t>>(node_->payload);
}
const std::vector<double>& Attribute::asFloats() const {
  if (kind() != Kind::DenseArray || !isFloat(node_->dtype)) wrongKind("float array");
  return std::get<std::vector<double>>(node_->payload);
}
const std::vector<Attribute>& Attribute::asArray() const {
  if (kind() != Kind::Array) wrongKind("array");
  return std::get<std::vector<Attribute>>(node_->payload);
}
const NamedAttrList& Attribute::fields() const {
  if (kind() == Kind::Dictionary) return std::get<NamedAttrList>(node_->payload);
  if (kind() == Kind::Record) return std::get<RecordPayload>(node_->payload).fields;
  wrongKind("dictionary or record");
}
const std::string& Attribute::enumName() const {
  if (kind() != Kind::Enum) wrongKind("enum");
  return std::get<StringPair>(node_->payload).first;
}
const std::string& Attribute::enumValueName() const {
  if (kind() != Kind::Enum) wrongKind("enum");
  return std::get<StringPair>(node_->payload).second;
}
const std::vector<std::string>& Attribute::nestedSymbols() const {
  if (kind() != Kind::SymbolRef) wrongKind("symbol");
  return std::get<Symbol>(node_->payload).nested;
}

Attribute Attribute::field(std::string_view name) const {
  for (const NamedAttribute& f : fields())
    if (f.name == name) return f.value;
  return {};
}

bool Attribute::operator==(const Attribute& other) const {
  if (node_ == other.node_) return true;
  if (!node_ || !other.node_) return false;
  if (node_->kind != other.node_->kind || node_->dtype != other.node_->dtype ||
      node_->flag != other.node_->flag || node_->payload.index() != other.node_->payload.index())
    return false;
  if (auto* d = std::get_if<double>(&node_->payload))
    return sameBits(*d, std::get<double>(other.node_->payload));
  if (auto* v = std::get_if<std::vector<double>>(&node_->payload)) {
    const auto& w = std::get<std::vector<double>>(other.node_->payload);
    return v->size() == w.size() && std::equal(v->begin(), v->end(), w.begin(), sameBits);
  }
  return node_->payload == other.node_->payload;
}

size_t Attribute::hash() const {
  if (!node_) return 0;
  size_t h = static_cast<size_t>(node_->kind) * 131 + static_cast<size_t>(node_->dtype);
  auto mix = [&h](size_t v) { h = h * 1000003 ^ v; };
  std::visit(
      [&](const auto& p) {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int64_t> ||
                      std::is_same_v<T, double> || std::is_same_v<T, std::string>) {
          mix(std::hash<T>()(p));
        } else if constexpr (std::is_same_v<T, Literal>) {
          mix(p.hash());
        } else if constexpr (std::is_same_v<T, TypePayload>) {
          mix(p.type.hash());
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          for (int64_t v : p) mix(std::hash<int64_t>()(v));
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          for (double v : p) mix(std::hash<double>()(v));
        } else if constexpr (std::is_same_v<T, std::vector<Attribute>>) {
          for (const Attribute& a : p) mix(a.hash());
        } else if constexpr (std::is_same_v<T, NamedAttrList>) {
          for (const NamedAttribute& a : p) mix(std::hash<std::string>()(a.name) ^ a.value.hash());
        } else if constexpr (std::is_same_v<T, RecordPayload>) {
          mix(std::hash<std::string>()(p.name));
          for (const NamedAttribute& a : p.fields) mix(a.value.hash());
        } else if constexpr (std::is_same_v<T, StringPair>) {
          mix(std::hash<std::string>()(p.first) ^ std::hash<std::string>()(p.second));
        } else if constexpr (std::is_same_v<T, Symbol>) {
          mix(std::hash<std::string>()(p.root));
        }
      },
      node_->payload);
  return h;
}

Attribute findAttr(const NamedAttrList& list, std::string_view name) {
  auto it = std::lower_bound(list.begin(), list.end(), name,
                             [](const NamedAttribute& a, std::string_view n) { return a.name < n; });
  return it != list.end() && it->name == name ? it->value : Attribute();
}

void setAttr(NamedAttrList& list, std::string name, Attribute value) {
  auto it = std::lower_bound(list.begin(), list.end(), name,
                             [](const NamedAttribute& a, const std::string& n) { return a.name < n; });
  if (it != list.end() && it->name == name) {
    it->value = std::move(value);
  } else {
    list.insert(it, NamedAttribute{std::move(name), std::move(value)});
  }
}

bool removeAttr(NamedAttrList& list, std::string_view name) {
  auto it = std::lower_bound(list.begin(), list.end(), name,
                             [](const NamedAttribute& a, std::string_view n) { return a.name < n; });
  if (it == list.end() || it->name != name) return false;
  list.erase(it);
  return true;
}

}  // namespace kiln
