// Printing types, attributes, dense literals, floats and locations.
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "ir/attr_records.h"
#include "ir/attr_schema.h"
#include "ir/float_format.h"
#include "stablehlo/printer_impl.h"

namespace kiln::stablehlo {

namespace {

std::string hexBits(uint64_t bits, int width) {
  int digits = (width + 3) / 4;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIX64, digits, bits);
  return buf;
}

bool isBareIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.')) return false;
  return true;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"') {
      out += "\\22";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "\\%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

std::string symbolText(const std::string& name) { return "@" + (isBareIdentifier(name) ? name : quote(name)); }

std::string printFloat(double value, DType t) {
  uint64_t bits = floatToBits(value, t);
  if (!std::isfinite(value)) return hexBits(bits, bitWidth(t));
  char buf[64];
  // Six digits first (the common, readable case), then as many as the value needs.
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision, value);
    uint64_t back;
    if (parseDecimalFloat(buf, t, back) && back == bits) return buf;
  }
  return hexBits(bits, bitWidth(t));  // cannot happen for finite values; exact anyway
}

void Printer::printTypeList(const TypeList& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) out_ += ", ";
    printType(types[i]);
  }
}

void Printer::printFunctionType(const TypeList& inputs, const TypeList& results) {
  out_ += "(";
  printTypeList(inputs);
  out_ += ") -> ";
  if (results.size() == 1) {
    printType(results[0]);
  } else {
    out_ += "(";
    printTypeList(results);
    out_ += ")";
  }
}

// ---- dense literals ------------------------------------------------------------------

namespace {

void appendElement(std::string& out, const Literal& lit, int64_t i) {
  DType t = lit.dtype();
  switch (kindOf(t)) {
    case DTypeKind::Bool: out += lit.boolAt(i) ? "true" : "false"; break;
    case DTypeKind::Signed: out += std::to_string(lit.intAt(i)); break;
    case DTypeKind::Unsigned: out += std::to_string(lit.uintAt(i)); break;
    case DTypeKind::Float: out += printFloat(lit.floatAt(i), t); break;
    case DTypeKind::Complex: {
      std::complex<double> c = lit.complexAt(i);
      out += "(" + printFloat(c.real(), complexPart(t)) + "," + printFloat(c.imag(), complexPart(t)) + ")";
      break;
    }
  }
}

void appendNested(std::string& out, const Literal& lit, size_t dim, int64_t& index) {
  const Shape& shape = lit.shape();
  out += "[";
  for (int64_t k = 0; k < shape[dim]; ++k) {
    if (k) out += ", ";
    if (dim + 1 == shape.size()) appendElement(out, lit, index++);
    else appendNested(out, lit, dim + 1, index);
  }
  out += "]";
}

}  // namespace

void Printer::printDense(const Literal& lit) {
  out_ += "dense<";
  int64_t n = lit.numElements();
  if (n == 0) {
    // nothing: dense<>
  } else if (lit.allElementsEqual()) {
    appendElement(out_, lit, 0);
  } else if (n > options_.hexThreshold) {
    // Raw little-endian storage; narrow types are one byte each holding their bits.
    static const char* kDigits = "0123456789ABCDEF";
    out_ += "\"0x";
    const uint8_t* data = lit.storage();
    int width = storageBytes(lit.dtype());
    bool narrow = width == 1 && bitWidth(lit.dtype()) < 8;
    uint8_t mask = narrow ? static_cast<uint8_t>((1u << bitWidth(lit.dtype())) - 1) : 0xff;
    size_t size = lit.storageSize();
    out_.reserve(out_.size() + 2 * size + 16);
    for (size_t i = 0; i < size; ++i) {
      uint8_t b = data[i] & mask;
      out_ += kDigits[b >> 4];
      out_ += kDigits[b & 15];
    }
    out_ += "\"";
  } else if (lit.type().rank() == 0) {
    appendElement(out_, lit, 0);
  } else {
    int64_t index = 0;
    appendNested(out_, lit, 0, index);
  }
  out_ += "> : ";
  printType(lit.type());
}

// ---- attributes -------------------------------------------------------------------------

void Printer::printAttr(const Attribute& a) {
  using K = Attribute::Kind;
  switch (a.kind()) {
    case K::None: out_ += "<<none>>"; return;
    case K::Unit: out_ += "unit"; return;
    case K::Bool: out_ += a.asBool() ? "true" : "false"; return;
    case K::Integer:
      if (a.isIndex()) {
        out_ += std::to_string(a.asInt()) + " : index";
      } else {
        out_ += isUnsignedInt(a.dtype()) ? std::to_string(static_cast<uint64_t>(a.asInt()))
                                         : std::to_string(a.asInt());
        out_ += " : ";
        out_ += name(a.dtype());
      }
      return;
    case K::Float:
      out_ += printFloat(a.asFloat(), a.dtype()) + " : " + std::string(name(a.dtype()));
      return;
    case K::String: out_ += quote(a.asString()); return;
    case K::TypeRef:
      if (a.isElementType()) out_ += name(a.dtype());
      else printType(a.asType());
      return;
    case K::Dense: printDense(a.asDense()); return;
    case K::DenseArray: {
      out_ += "array<";
      out_ += name(a.dtype());
      bool isFloatArray = isFloat(a.dtype());
      size_t n = isFloatArray ? a.asFloats().size() : a.asInts().size();
      for (size_t i = 0; i < n; ++i) {
        out_ += i ? ", " : ": ";
        if (isFloatArray) out_ += printFloat(a.asFloats()[i], a.dtype());
        else if (isBool(a.dtype())) out_ += a.asInts()[i] ? "true" : "false";
        else out_ += std::to_string(a.asInts()[i]);
      }
      out_ += ">";
      return;
    }
    case K::Array: {
      out_ += "[";
      const auto& elements = a.asArray();
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i) out_ += ", ";
        // Like MLIR, i64 integers inside arrays go without their type.
        const Attribute& e = elements[i];
        if (e.is(K::Integer) && !e.isIndex() && e.dtype() == DType::I64) out_ += std::to_string(e.asInt());
        else printAttr(e);
      }
      out_ += "]";
      return;
    }
    case K::Dictionary: printAttrDict(a.fields()); return;
    case K::SymbolRef:
      out_ += symbolText(a.asString());
      for (const std::string& n : a.nestedSymbols()) out_ += "::" + symbolText(n);
      return;
    case K::Enum: {
      const std::string& full = a.enumName();
      if (full == "stablehlo.result_accuracy_mode") {
        out_ += "#stablehlo.result_accuracy_mode<" + a.enumValueName() + ">";
        return;
      }
      size_t dot = full.find('.');
      out_ += "#" + full.substr(0, dot) + "<" + full.substr(dot + 1) + " " + a.enumValueName() + ">";
      return;
    }
    case K::Record:
      out_ += "#" + a.asString();
      if (a.asString() == "stablehlo.conv") {
        out_ += "<";
        printConvDimensions(a);
        out_ += ">";
      } else {
        printRecordBody(a);
      }
      return;
    case K::Opaque: out_ += a.asString(); return;
  }
}

void Printer::printRecordBody(const Attribute& record) {
  const RecordSchema* schema = recordSchema(record.asString());
  out_ += "<";
  bool first = true;
  for (const NamedAttribute& f : record.fields()) {
    const RecordField* field = schema ? schema->find(f.name) : nullptr;
    if (field && field->omitWhenDefault && f.value == field->defaultValue) continue;
    if (!first) out_ += ", ";
    first = false;
    out_ += f.name + " = ";
    const Attribute& v = f.value;
    if (v.is(Attribute::Kind::Integer)) out_ += std::to_string(v.asInt());
    else if (v.is(Attribute::Kind::Float)) out_ += printFloat(v.asFloat(), DType::F64);
    else if (v.is(Attribute::Kind::DenseArray)) {
      out_ += "[";
      for (size_t i = 0; i < v.asInts().size(); ++i) out_ += (i ? ", " : "") + std::to_string(v.asInts()[i]);
      out_ += "]";
    } else {
      printAttr(v);
    }
  }
  out_ += ">";
}

void Printer::printConvDimensions(const Attribute& conv) {
  ConvDims d = ConvDims::fromAttr(conv);
  auto side = [&](int64_t batch, int64_t feature, const Dims& sp, char b, char f) {
    std::vector<std::string> entries(sp.size() + 2, "?");
    auto put = [&](int64_t pos, std::string s) {
      if (pos >= 0 && pos < static_cast<int64_t>(entries.size())) entries[static_cast<size_t>(pos)] = std::move(s);
    };
    put(batch, std::string(1, b));
    put(feature, std::string(1, f));
    for (size_t k = 0; k < sp.size(); ++k) put(sp[k], std::to_string(k));
    out_ += "[";
    for (size_t i = 0; i < entries.size(); ++i) out_ += (i ? ", " : "") + entries[i];
    out_ += "]";
  };
  side(d.inputBatch, d.inputFeature, d.inputSpatial, 'b', 'f');
  out_ += "x";
  side(d.kernelInputFeature, d.kernelOutputFeature, d.kernelSpatial, 'i', 'o');
  out_ += "->";
  side(d.outputBatch, d.outputFeature, d.outputSpatial, 'b', 'f');
}

void Printer::printAttrDict(const NamedAttrList& attrs) {
  out_ += "{";
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i) out_ += ", ";
    out_ += isBareIdentifier(attrs[i].name) ? attrs[i].name : quote(attrs[i].name);
    if (attrs[i].value.is(Attribute::Kind::Unit)) continue;
    out_ += " = ";
    const Attribute& value = attrs[i].value;
    if ((attrs[i].name == "operand_layouts" || attrs[i].name == "result_layouts") && value.is(Attribute::Kind::Array)) {
      // A custom call's layouts are index tensors in MLIR, which kiln reads as i64
      // (attr_parser.cc): written back as index, so MLIR's own parsers take kiln's text.
      out_ += "[";
      for (size_t j = 0; j < value.asArray().size(); ++j) {
        if (j) out_ += ", ";
        const Attribute& layout = value.asArray()[j];
        if (!layout.is(Attribute::Kind::Dense) || layout.asDense().dtype() != DType::I64) {
          printAttr(layout);
          continue;
        }
        const size_t start = out_.size();
        printDense(layout.asDense());
        const size_t type = out_.rfind("xi64>");
        if (type != std::string::npos && type > start) out_.replace(type, 5, "xindex>");
      }
      out_ += "]";
      continue;
    }
    printAttr(value);
  }
  out_ += "}";
}

void Printer::printAttrShort(const AttrSpec& spec, const Attribute& a) {
  auto list = [&](const std::vector<int64_t>& v, bool asBool) {
    out_ += "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out_ += ", ";
      out_ += asBool ? (v[i] ? "true" : "false") : std::to_string(v[i]);
    }
    out_ += "]";
  };
  switch (spec.kind) {
    case AttrKind::Int:
      out_ += isUnsignedInt(spec.dtype) ? std::to_string(static_cast<uint64_t>(a.asInt()))
                                        : std::to_string(a.asInt());
      return;
    case AttrKind::Float: out_ += printFloat(a.asFloat(), spec.dtype); return;
    case AttrKind::Bool: out_ += a.asBool() ? "true" : "false"; return;
    case AttrKind::I64Array: list(a.asInts(), false); return;
    case AttrKind::BoolArray: list(a.asInts(), true); return;
    case AttrKind::Enum: out_ += a.enumValueName(); return;
    case AttrKind::EnumArray:
      out_ += "[";
      for (size_t i = 0; i < a.asArray().size(); ++i) out_ += (i ? ", " : "") + a.asArray()[i].enumValueName();
      out_ += "]";
      return;
    case AttrKind::String: out_ += quote(a.asString()); return;
    case AttrKind::Record:
      if (a.asString() == "stablehlo.conv") printConvDimensions(a);
      else printRecordBody(a);
      return;
    default: printAttr(a); return;
  }
}

std::string printAttribute(const Attribute& attr) {
  Printer p(PrintOptions{});
  p.printAttr(attr);
  return std::move(p.out());
}

void Printer::printLocation(const Location& loc) {
  if (!options_.locations || loc.isUnknown()) return;
  out_ += " loc(" + loc.str() + ")";
}

}  // namespace kiln::stablehlo
