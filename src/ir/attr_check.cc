// Attribute kind checks and canonicalization.
#include "ir/attr_check.h"

namespace kiln {
namespace {

using K = Attribute::Kind;

bool fitsInt(int64_t v, DType t) {
  int bits = bitWidth(t);
  if (bits >= 64) return true;
  if (isUnsignedInt(t)) return v >= 0 && v < (int64_t{1} << bits);
  int64_t lo = -(int64_t{1} << (bits - 1));
  return v >= lo && v < -lo;
}

// Integers of a list-like attribute (DenseArray, 1-D dense tensor, array of ints).
bool intList(const Attribute& a, std::vector<int64_t>& out) {
  out.clear();
  if (a.is(K::DenseArray) && !isFloat(a.dtype())) {
    out = a.asInts();
    return true;
  }
  if (a.is(K::Dense)) {
    const Literal& lit = a.asDense();
    if (lit.type().rank() != 1 || !(isInteger(lit.dtype()) || isBool(lit.dtype()))) return false;
    for (int64_t i = 0; i < lit.numElements(); ++i) out.push_back(lit.intAt(i));
    return true;
  }
  if (a.is(K::Array)) {
    for (const Attribute& e : a.asArray()) {
      if (e.is(K::Integer)) out.push_back(e.asInt());
      else if (e.is(K::Bool)) out.push_back(e.asBool());
      else return false;
    }
    return true;
  }
  return false;
}

bool arrayOf(const Attribute& a, K kind, std::string_view name = {}) {
  if (!a.is(K::Array)) return false;
  for (const Attribute& e : a.asArray()) {
    if (!e.is(kind)) return false;
    if (kind == K::Enum && e.enumName() != name) return false;
    if (kind == K::Record && e.asString() != name) return false;
  }
  return true;
}

}  // namespace

std::string describeAttrKind(const AttrSpec& spec) {
  switch (spec.kind) {
    case AttrKind::Int: return "an integer (" + std::string(name(spec.dtype)) + ")";
    case AttrKind::Float: return "a float (" + std::string(name(spec.dtype)) + ")";
    case AttrKind::Bool: return "a boolean";
    case AttrKind::Unit: return "a unit attribute";
    case AttrKind::I64Array: return "an array of i64";
    case AttrKind::BoolArray: return "an array of booleans";
    case AttrKind::Enum: return "a " + std::string(spec.type) + " value";
    case AttrKind::EnumArray: return "an array of " + std::string(spec.type) + " values";
    case AttrKind::Dense: return "a dense tensor literal";
    case AttrKind::DenseI64: return "a dense integer tensor literal";
    case AttrKind::String: return "a string";
    case AttrKind::Symbol: return "a symbol reference";
    case AttrKind::SymbolArray: return "an array of symbol references";
    case AttrKind::Record: return "a #" + std::string(spec.type) + "<...> attribute";
    case AttrKind::RecordArray: return "an array of #" + std::string(spec.type) + "<...>";
    case AttrKind::Any: return "any attribute";
  }
  return "?";
}

bool attributeMatches(const AttrSpec& spec, const Attribute& a) {
  switch (spec.kind) {
    case AttrKind::Int: return a.is(K::Integer) && a.dtype() == spec.dtype && fitsInt(a.asInt(), spec.dtype);
    case AttrKind::Float: return a.is(K::Float) && a.dtype() == spec.dtype;
    case AttrKind::Bool: return a.is(K::Bool);
    case AttrKind::Unit: return a.is(K::Unit);
    case AttrKind::I64Array: return a.is(K::DenseArray) && a.dtype() == DType::I64;
    case AttrKind::BoolArray: return a.is(K::DenseArray) && a.dtype() == DType::I1;
    case AttrKind::Enum: return a.is(K::Enum) && a.enumName() == spec.type;
    case AttrKind::EnumArray: return arrayOf(a, K::Enum, spec.type);
    case AttrKind::Dense: return a.is(K::Dense);
    case AttrKind::DenseI64: return a.is(K::Dense) && isInteger(a.asDense().dtype());
    case AttrKind::String: return a.is(K::String);
    case AttrKind::Symbol: return a.is(K::SymbolRef);
    case AttrKind::SymbolArray: return arrayOf(a, K::SymbolRef);
    case AttrKind::Record: return a.is(K::Record) && a.asString() == spec.type;
    case AttrKind::RecordArray: return arrayOf(a, K::Record, spec.type);
    case AttrKind::Any: return static_cast<bool>(a);
  }
  return false;
}

Attribute coerceAttribute(const AttrSpec& spec, const Attribute& a, std::string& error) {
  error.clear();
  if (attributeMatches(spec, a)) return a;
  std::vector<int64_t> ints;
  switch (spec.kind) {
    case AttrKind::Int:
      if (a.is(K::Integer)) {
        if (!fitsInt(a.asInt(), spec.dtype)) {
          error = "value " + std::to_string(a.asInt()) + " does not fit " + std::string(name(spec.dtype));
          return {};
        }
        return Attribute::integer(a.asInt(), spec.dtype);
      }
      break;
    case AttrKind::Float:
      if (a.is(K::Float)) return Attribute::floating(a.asFloat(), spec.dtype);
      if (a.is(K::Integer)) return Attribute::floating(static_cast<double>(a.asInt()), spec.dtype);
      break;
    case AttrKind::Unit:
      return Attribute::unit();  // any value given to a unit attribute means "present"
    case AttrKind::I64Array:
      if (intList(a, ints)) return Attribute::i64Array(std::move(ints));
      break;
    case AttrKind::BoolArray:
      if (intList(a, ints)) {
        for (int64_t& v : ints) {
          if (v != 0 && v != 1) {
            error = "boolean array holds " + std::to_string(v);
            return {};
          }
        }
        return Attribute::intArray(DType::I1, std::move(ints));
      }
      break;
    default: break;
  }
  error = "expected " + describeAttrKind(spec);
  return {};
}

}  // namespace kiln
