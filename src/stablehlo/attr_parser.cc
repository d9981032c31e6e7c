// Parsing types, attributes, dense literals and locations.
#include <charconv>
#include <cstring>
#include <functional>

#include "ir/attr_check.h"
#include "ir/float_format.h"
#include "stablehlo/parser_impl.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::stablehlo {

// ---- numbers --------------------------------------------------------------------------

namespace {

// Parses an unsigned integer token (decimal or 0x hex); false on overflow.
bool tokenToU64(std::string_view text, uint64_t& value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool isHex(std::string_view text) {
  return text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

}  // namespace

bool Parser::parseInteger(int64_t& value) {
  size_t offset = tok_.offset;
  bool negative = false;
  if (tok_.is(Tok::Minus)) {
    if (!peek().is(Tok::Integer)) return false;
    negative = true;
    advance();
  }
  if (!tok_.is(Tok::Integer)) return false;
  uint64_t magnitude;
  if (!tokenToU64(tok_.text, magnitude)) errorAt(offset, "integer is too large");
  if (negative) {
    if (magnitude > uint64_t{1} << 63) errorAt(offset, "integer is too small for 64 bits");
    value = static_cast<int64_t>(0 - magnitude);
  } else {
    value = static_cast<int64_t>(magnitude);  // ui64 values above 2^63 keep their bits
  }
  advance();
  return true;
}

int64_t Parser::parseI64(std::string_view context) {
  int64_t v;
  if (!parseInteger(v)) error("expected an integer " + std::string(context) + ", found '" + std::string(tok_.text) + "'");
  return v;
}

std::vector<int64_t> Parser::parseI64List(std::string_view context) {
  std::vector<int64_t> values;
  expect(Tok::LSquare, context);
  if (!tok_.is(Tok::RSquare)) {
    do values.push_back(parseI64(context));
    while (consumeIf(Tok::Comma));
  }
  expect(Tok::RSquare, context);
  return values;
}

double Parser::parseFloatValue(DType type, std::string_view context) {
  size_t offset = tok_.offset;
  bool negative = consumeIf(Tok::Minus);
  if (tok_.is(Tok::Integer) && isHex(tok_.text)) {
    uint64_t bits;
    if (negative || !tokenToU64(tok_.text, bits)) errorAt(offset, "bad hexadecimal float bit pattern");
    advance();
    return bitsToFloat(bits, type);
  }
  if (!tok_.is(Tok::Float) && !tok_.is(Tok::Integer))
    error("expected a number " + std::string(context) + ", found '" + std::string(tok_.text) + "'");
  std::string text = (negative ? "-" : "") + std::string(tok_.text);
  uint64_t bits;
  if (!parseDecimalFloat(text, type, bits)) errorAt(offset, "bad number '" + text + "'");
  advance();
  return bitsToFloat(bits, type);
}

// ---- types ------------------------------------------------------------------------------

bool Parser::atType() const {
  if (tok_.is(Tok::BangId)) return true;
  if (!tok_.is(Tok::BareId)) return false;
  return tok_.text == "tensor" || tok_.text == "tuple" || tok_.text == "memref" ||
         parseDType(tok_.text) || tok_.text == "complex" || tok_.text == "index";
}

std::optional<DType> Parser::parseElementType() {
  if (tok_.is(Tok::BangId)) {
    if (tok_.text.rfind("!quant.", 0) == 0) unsupportedAt(tok_.offset, "quantized types (" + std::string(tok_.text) + ")");
    return std::nullopt;
  }
  if (!tok_.is(Tok::BareId)) return std::nullopt;
  if (tok_.text == "complex") {
    advance();
    expect(Tok::Less, "after 'complex'");
    size_t offset = tok_.offset;
    std::optional<DType> part = parseElementType();
    if (!part || !complexOf(*part)) errorAt(offset, "complex element type must be f32 or f64");
    expect(Tok::Greater, "to close complex<...>");
    return complexOf(*part);
  }
  if (tok_.text == "index") {  // only in attributes (custom_call layouts); kiln reads it as i64
    advance();
    return DType::I64;
  }
  std::optional<DType> t = parseDType(tok_.text);
  if (t) advance();
  return t;
}

Type Parser::parseType() {
  size_t offset = tok_.offset;
  if (tok_.is(Tok::BangId)) {
    std::string name(tok_.text);
    if (name == "!stablehlo.token") {
      advance();
      return Type::token();
    }
    if (auto it = typeAliases_.find(name); it != typeAliases_.end()) {
      advance();
      return it->second;
    }
    if (name.rfind("!quant.", 0) == 0) unsupportedAt(offset, "quantized types (" + name + ")");
    if (name == "!stablehlo.future") unsupportedAt(offset, "!stablehlo.future types (async ops)");
    unsupportedAt(offset, "type " + name);
  }
  if (tok_.isKeyword("tuple")) {
    advance();
    expect(Tok::Less, "after 'tuple'");
    std::vector<Type> elements;
    if (!tok_.is(Tok::Greater)) {
      do elements.push_back(parseType());
      while (consumeIf(Tok::Comma));
    }
    expect(Tok::Greater, "to close tuple<...>");
    return Type::tuple(std::move(elements));
  }
  if (tok_.isKeyword("tensor")) {
    advance();
    if (!tok_.is(Tok::Less)) error("expected '<' after 'tensor'");
    // Dimensions are read character by character: `2x3xf32` is not made of tokens.
    size_t pos = tok_.offset + 1;
    lexer_.resetTo(pos);
    std::string_view rest = lexer_.rest();
    size_t i = 0;
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\n' || rest[i] == '\t')) ++i;
    Shape shape;
    while (i < rest.size()) {
      char c = rest[i];
      if (c == '?' || c == '*') {
        unsupportedAt(pos + i, c == '?' ? "dynamic shapes (tensor dimension '?')" : "unranked tensors");
      }
      if (c < '0' || c > '9') break;
      size_t start = i;
      while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') ++i;
      if (i >= rest.size() || rest[i] != 'x') {
        i = start;  // a number not followed by 'x' is not a dimension (e.g. i8 never starts so)
        break;
      }
      uint64_t d;
      if (!tokenToU64(rest.substr(start, i - start), d) || d > (uint64_t{1} << 48))
        errorAt(pos + start, "tensor dimension is too large");
      shape.push_back(static_cast<int64_t>(d));
      ++i;  // 'x'
    }
    lexer_.resetTo(pos + i);
    advance();
    size_t elementOffset = tok_.offset;
    std::optional<DType> dtype = parseElementType();
    if (!dtype) errorAt(elementOffset, "expected an element type in tensor<...>, found '" + std::string(tok_.text) + "'");
    if (tok_.is(Tok::Comma)) unsupportedAt(tok_.offset, "tensor encodings (bounded dynamic shapes)");
    expect(Tok::Greater, "to close tensor<...>");
    // A shape whose total size overflows is not a real tensor.
    int64_t total = 1;
    for (int64_t d : shape) {
      if (d != 0 && total > (int64_t{1} << 48) / d) errorAt(offset, "tensor has too many elements");
      total *= d;
    }
    return Type::tensor(*dtype, std::move(shape));
  }
  if (tok_.isKeyword("memref")) unsupportedAt(offset, "memref (buffer) types");
  if (tok_.is(Tok::BareId) && (parseDType(tok_.text) || tok_.text == "complex" || tok_.text == "index"))
    error("expected a tensor type, found the element type '" + std::string(tok_.text) + "' (use tensor<" + std::string(tok_.text) + ">)");
  error("expected a type, found '" + std::string(tok_.text) + "'");
}

TypeList Parser::parseTypeList() {
  TypeList types;
  do types.push_back(parseType());
  while (consumeIf(Tok::Comma));
  return types;
}

TypeList Parser::parseResultTypes() {
  if (consumeIf(Tok::LParen)) {
    TypeList types;
    if (!tok_.is(Tok::RParen)) types = parseTypeList();
    expect(Tok::RParen, "to close the result types");
    return types;
  }
  return {parseType()};
}

void Parser::parseFunctionType(TypeList& inputs, TypeList& results) {
  expect(Tok::LParen, "to open a function type");
  inputs.clear();
  if (!tok_.is(Tok::RParen)) inputs = parseTypeList();
  expect(Tok::RParen, "to close the input types");
  expect(Tok::Arrow, "in a function type");
  results = parseResultTypes();
}

// ---- attributes ------------------------------------------------------------------------

NamedAttrList Parser::parseAttrDict() {
  NamedAttrList entries;
  expect(Tok::LBrace, "to open an attribute dictionary");
  if (!tok_.is(Tok::RBrace)) {
    do {
      std::string name;
      size_t offset = tok_.offset;
      if (tok_.is(Tok::BareId)) {
        name = std::string(tok_.text);
      } else if (tok_.is(Tok::String)) {
        if (!unescape(tok_.text, name)) error("bad string escape");
      } else {
        error("expected an attribute name, found '" + std::string(tok_.text) + "'");
      }
      advance();
      Attribute value = consumeIf(Tok::Equal) ? parseAttribute() : Attribute::unit();
      if (findAttr(entries, name)) errorAt(offset, "attribute '" + name + "' is given twice");
      setAttr(entries, std::move(name), std::move(value));
    } while (consumeIf(Tok::Comma));
  }
  expect(Tok::RBrace, "to close an attribute dictionary");
  return entries;
}

Attribute Parser::parseAttribute() {
  size_t offset = tok_.offset;
  switch (tok_.kind) {
    case Tok::Minus:
    case Tok::Integer:
    case Tok::Float: {
      // A number typed by an optional `: type`; plain integers are i64, plain floats f64.
      size_t start = tok_.offset;
      bool negative = consumeIf(Tok::Minus);
      Token number = tok_;
      if (!number.is(Tok::Integer) && !number.is(Tok::Float)) error("expected a number after '-'");
      advance();
      std::optional<DType> type;
      bool isIndexType = false;
      if (consumeIf(Tok::Colon)) {
        size_t typeOffset = tok_.offset;
        if (consumeKeyword("index")) {
          isIndexType = true;
        } else {
          type = parseElementType();
          if (!type || isComplex(*type)) errorAt(typeOffset, "expected an integer or float type after ':'");
        }
      }
      size_t resume = tok_.offset;
      bool wantFloat = type ? isFloat(*type) : number.is(Tok::Float);
      lexer_.resetTo(start);  // re-read the literal now that its type is known
      advance();
      Attribute result;
      if (wantFloat) {
        if (isIndexType) errorAt(start, "an index attribute must be an integer");
        DType t = type.value_or(DType::F64);
        result = Attribute::floating(parseFloatValue(t, "in an attribute"), t);
      } else {
        if (number.is(Tok::Float)) errorAt(start, "a float literal needs a float type");
        int64_t v;
        parseInteger(v);
        if (isIndexType) result = Attribute::index(v);
        else if (type && isBool(*type)) result = Attribute::boolean(v != 0);
        else result = Attribute::integer(v, type.value_or(DType::I64));
      }
      (void)negative;
      lexer_.resetTo(resume);
      advance();
      return result;
    }
    case Tok::String: {
      std::string s;
      if (!unescape(tok_.text, s)) error("bad string escape");
      advance();
      return Attribute::string(std::move(s));
    }
    case Tok::LSquare: {
      advance();
      std::vector<Attribute> elements;
      if (!tok_.is(Tok::RSquare)) {
        do elements.push_back(parseAttribute());
        while (consumeIf(Tok::Comma));
      }
      expect(Tok::RSquare, "to close an array attribute");
      return Attribute::array(std::move(elements));
    }
    case Tok::LBrace: return Attribute::dictionary(parseAttrDict());
    case Tok::SymbolId: {
      auto symbolName = [&](const Token& t) {
        std::string s(t.text.substr(1));
        if (!s.empty() && s[0] == '"' && !unescape(t.text.substr(1), s)) errorAt(t.offset, "bad symbol name");
        return s;
      };
      std::string root = symbolName(tok_);
      advance();
      std::vector<std::string> nested;
      while (consumeIf(Tok::ColonColon)) nested.push_back(symbolName(expect(Tok::SymbolId, "after '::'")));
      return Attribute::symbol(std::move(root), std::move(nested));
    }
    case Tok::HashId: return parseHashAttribute();
    case Tok::BangId: return Attribute::type(parseType());
    case Tok::BareId: {
      std::string_view word = tok_.text;
      if (word == "true" || word == "false") {
        advance();
        return Attribute::boolean(word == "true");
      }
      if (word == "unit") {
        advance();
        return Attribute::unit();
      }
      if (word == "dense") {
        advance();
        return parseDenseAttr();
      }
      if (word == "dense_resource") unsupportedAt(offset, "dense_resource attributes (external constant data)");
      if (word == "array") {
        advance();
        expect(Tok::Less, "after 'array'");
        size_t typeOffset = tok_.offset;
        std::optional<DType> t = parseElementType();
        if (!t || isComplex(*t)) errorAt(typeOffset, "expected the element type of array<...>");
        std::vector<int64_t> ints;
        std::vector<double> floats;
        if (consumeIf(Tok::Colon)) {
          do {
            if (isFloat(*t)) {
              floats.push_back(parseFloatValue(*t, "in array<...>"));
            } else if (isBool(*t) && (tok_.isKeyword("true") || tok_.isKeyword("false"))) {
              ints.push_back(tok_.text == "true");
              advance();
            } else {
              ints.push_back(parseI64("in array<...>"));
            }
          } while (consumeIf(Tok::Comma));
        }
        expect(Tok::Greater, "to close array<...>");
        return isFloat(*t) ? Attribute::floatArray(*t, std::move(floats))
                           : Attribute::intArray(*t, std::move(ints));
      }
      if (word == "tensor" || word == "tuple") return Attribute::type(parseType());
      if (std::optional<DType> t = parseElementType()) return Attribute::elementType(*t);
      if (word == "affine_map" || word == "affine_set") unsupportedAt(offset, std::string(word) + " attributes");
      error("unknown attribute '" + std::string(word) + "'");
    }
    default: break;
  }
  error("expected an attribute, found '" + std::string(tok_.text) + "'");
}

Attribute Parser::canonicalAttr(const OpInfo& info, const std::string& name, const Attribute& value,
                                size_t offset) const {
  const AttrSpec* spec = info.findAttr(name);
  if (!spec) return value;  // a discardable attribute: kept as written
  std::string why;
  Attribute canonical = coerceAttribute(*spec, value, why);
  if (!canonical)
    errorAt(offset, "attribute '" + name + "' of " + std::string(info.name) + ": " + why +
                        ", got " + printAttribute(value));
  return canonical;
}

// Dialect attributes: #stablehlo<enum VALUE>, #stablehlo.record<...>, #alias, others kept verbatim.
Attribute Parser::parseHashAttribute() {
  Token hash = tok_;
  std::string name(hash.text);
  if (auto it = attrAliases_.find(name); it != attrAliases_.end()) {
    advance();
    return it->second;
  }
  advance();
  if ((name == "#stablehlo" || name == "#chlo") && tok_.is(Tok::Less)) {
    advance();
    Token kind = expect(Tok::BareId, "for the enum kind");
    Token value = expect(Tok::BareId, "for the enum value");
    expect(Tok::Greater, "to close the enum attribute");
    std::string enumName = name.substr(1) + "." + std::string(kind.text);
    if (!enumValues(enumName).empty() && !isEnumValue(enumName, value.text))
      errorAt(value.offset, "'" + std::string(value.text) + "' is not a " + enumName + " value");
    return Attribute::enumValue(enumName, std::string(value.text));
  }
  std::string recordName = name.substr(1);
  if (recordName == "stablehlo.conv" && tok_.is(Tok::Less)) {
    advance();
    Attribute conv;
    if (consumeKeyword("raw")) {
      conv = parseRecordBody(*recordSchema("stablehlo.conv"), hash.offset);
    } else {
      conv = parseConvDimensions();
      expect(Tok::Greater, "to close #stablehlo.conv<...>");
    }
    return conv;
  }
  if (recordName == "stablehlo.result_accuracy_mode" && tok_.is(Tok::Less)) {
    advance();
    Token value = expect(Tok::BareId, "for the accuracy mode");
    if (!isEnumValue(recordName, value.text)) errorAt(value.offset, "unknown accuracy mode");
    expect(Tok::Greater, "to close the accuracy mode");
    return Attribute::enumValue(recordName, std::string(value.text));
  }
  if (const RecordSchema* schema = recordSchema(recordName); schema && tok_.is(Tok::Less)) {
    advance();
    return parseRecordBody(*schema, hash.offset);
  }
  // Anything else (#sdy.sharding<...>, #mhlo.xyz<...>) is kept verbatim.
  size_t end = hash.offset + hash.text.size();
  if (tok_.is(Tok::Less)) {
    int depth = 0;
    do {
      if (tok_.is(Tok::Eof)) errorAt(hash.offset, "unterminated attribute " + name + "<...");
      if (tok_.is(Tok::Less)) ++depth;
      if (tok_.is(Tok::Greater)) --depth;
      end = tok_.offset + tok_.text.size();
      advance();
    } while (depth > 0);
  }
  return Attribute::opaque(std::string(source_->text().substr(hash.offset, end - hash.offset)));
}

// Fields `name = value, ...>` of a record; missing fields take the schema defaults.
Attribute Parser::parseRecordBody(const RecordSchema& schema, size_t start) {
  std::vector<Attribute> values(schema.fields.size());
  if (!tok_.is(Tok::Greater)) {
    do {
      if (tok_.is(Tok::Greater)) break;  // a trailing comma
      Token field = expect(Tok::BareId, "for a field name");
      const RecordField* f = schema.find(field.text);
      if (!f) errorAt(field.offset, "#" + std::string(schema.name) + " has no field '" + std::string(field.text) + "'");
      size_t index = static_cast<size_t>(f - schema.fields.data());
      if (values[index]) errorAt(field.offset, "field '" + std::string(field.text) + "' is given twice");
      expect(Tok::Equal, "after the field name");
      switch (f->kind) {
        case FieldKind::Int: values[index] = Attribute::integer(parseI64("for the field")); break;
        case FieldKind::I64Array: values[index] = Attribute::i64Array(parseI64List("for the field")); break;
        case FieldKind::Bool:
          if (!tok_.isKeyword("true") && !tok_.isKeyword("false")) error("expected true or false");
          values[index] = Attribute::boolean(tok_.text == "true");
          advance();
          break;
        case FieldKind::Float: values[index] = Attribute::floating(parseFloatValue(DType::F64, "for the field")); break;
        case FieldKind::ElementType: {
          size_t offset = tok_.offset;
          std::optional<DType> t = parseElementType();
          if (!t) errorAt(offset, "expected an element type");
          values[index] = Attribute::elementType(*t);
          break;
        }
        case FieldKind::Enum: {
          size_t offset = tok_.offset;
          Attribute e = parseAttribute();
          if (!e.is(Attribute::Kind::Enum) || e.enumName() != f->enumName)
            errorAt(offset, "expected a " + std::string(f->enumName) + " value");
          values[index] = e;
          break;
        }
      }
    } while (consumeIf(Tok::Comma));
  }
  expect(Tok::Greater, "to close #" + std::string(schema.name) + "<...>");
  (void)start;
  NamedAttrList fields;
  for (size_t i = 0; i < schema.fields.size(); ++i)
    fields.push_back({std::string(schema.fields[i].name), values[i] ? values[i] : schema.fields[i].defaultValue});
  return Attribute::record(std::string(schema.name), std::move(fields));
}

// [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
Attribute Parser::parseConvDimensions() {
  struct Side {
    std::vector<std::string> entries;
    size_t offset;
  };
  auto parseSide = [&]() {
    Side side{{}, tok_.offset};
    expect(Tok::LSquare, "in convolution dimension numbers");
    if (!tok_.is(Tok::RSquare)) {
      do {
        if (!tok_.is(Tok::BareId) && !tok_.is(Tok::Integer)) error("expected a dimension letter or number");
        side.entries.emplace_back(tok_.text);
        advance();
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RSquare, "in convolution dimension numbers");
    return side;
  };
  Side input = parseSide();
  expectKeyword("x", "between input and kernel dimensions");
  Side kernel = parseSide();
  expect(Tok::Arrow, "before the output dimensions");
  Side output = parseSide();

  // Each side: two letters and the spatial dimensions 0..n-1, each exactly once.
  auto decode = [&](const Side& side, char a, char b, int64_t& posA, int64_t& posB,
                    std::vector<int64_t>& spatial) {
    posA = posB = -1;
    size_t n = side.entries.size() < 2 ? 0 : side.entries.size() - 2;
    spatial.assign(n, -1);
    for (size_t p = 0; p < side.entries.size(); ++p) {
      const std::string& e = side.entries[p];
      int64_t* slot = nullptr;
      if (e.size() == 1 && e[0] == a) slot = &posA;
      else if (e.size() == 1 && e[0] == b) slot = &posB;
      else if (!e.empty() && e[0] >= '0' && e[0] <= '9') {
        uint64_t k;
        if (!tokenToU64(e, k) || k >= n) errorAt(side.offset, "spatial dimension " + e + " is out of range");
        slot = &spatial[k];
      } else {
        errorAt(side.offset, "unexpected '" + e + "' in convolution dimension numbers (expected " +
                                 std::string(1, a) + ", " + std::string(1, b) + " or a number)");
      }
      if (*slot != -1) errorAt(side.offset, "'" + e + "' appears twice in convolution dimension numbers");
      *slot = static_cast<int64_t>(p);
    }
    if (posA < 0 || posB < 0) errorAt(side.offset, std::string("convolution dimension numbers need '") + a + "' and '" + b + "'");
  };
  int64_t ib, if_, ki, ko, ob, of;
  std::vector<int64_t> is, ks, os;
  decode(input, 'b', 'f', ib, if_, is);
  decode(kernel, 'i', 'o', ki, ko, ks);
  decode(output, 'b', 'f', ob, of, os);
  auto i = [](int64_t v) { return Attribute::integer(v); };
  auto l = [](std::vector<int64_t> v) { return Attribute::i64Array(std::move(v)); };
  return Attribute::record("stablehlo.conv",
                           {{"input_batch_dimension", i(ib)}, {"input_feature_dimension", i(if_)},
                            {"input_spatial_dimensions", l(is)}, {"kernel_input_feature_dimension", i(ki)},
                            {"kernel_output_feature_dimension", i(ko)}, {"kernel_spatial_dimensions", l(ks)},
                            {"output_batch_dimension", i(ob)}, {"output_feature_dimension", i(of)},
                            {"output_spatial_dimensions", l(os)}});
}

// ---- dense literals ------------------------------------------------------------------

namespace {

// One element of a dense literal as written: a number/bool token or a complex pair.
struct DenseElement {
  Token tok;
  bool negative = false;
  Token imag;  // complex only
  bool imagNegative = false;
  bool isComplex = false;
};

}  // namespace

Attribute Parser::parseDenseAttr() {
  size_t start = tok_.offset;
  expect(Tok::Less, "after 'dense'");
  size_t bodyStart = tok_.offset;
  // Find the end of the body; it is converted once the type (after it) is known.
  int depth = 1;
  size_t bodyEnd = bodyStart;
  while (depth > 0) {
    if (tok_.is(Tok::Eof) || tok_.is(Tok::Error)) errorAt(start, "dense<...> is not closed");
    if (tok_.is(Tok::Less)) ++depth;
    if (tok_.is(Tok::Greater) && --depth == 0) {
      bodyEnd = tok_.offset;
      break;
    }
    advance();
  }
  advance();  // >
  expect(Tok::Colon, "after dense<...> (a dense literal needs its type)");
  Type type = parseType();
  if (!type.isTensor()) errorAt(start, "a dense literal must have a tensor type");
  size_t resume = tok_.offset;
  Attribute attr = parseDenseBody(type, bodyStart, bodyEnd);
  lexer_.resetTo(resume);
  advance();
  return attr;
}

Attribute Parser::parseDenseBody(const Type& type, size_t bodyStart, size_t bodyEnd) {
  lexer_.resetTo(bodyStart);
  advance();
  const DType dtype = type.dtype();
  const int width = storageBytes(dtype);
  const int64_t n = type.numElements();

  if (tok_.offset == bodyEnd) {  // dense<>
    if (n != 0) errorAt(bodyStart, "dense<> is empty but " + type.str() + " has " + std::to_string(n) + " elements");
    return Attribute::dense(Literal(type));
  }

  if (tok_.is(Tok::String)) {  // "0x..." raw little-endian storage
    std::string_view text = tok_.text.substr(1, tok_.text.size() - 2);
    if (text.size() < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
      error("a string in dense<...> must be a hex literal \"0x...\"");
    text.remove_prefix(2);
    if (text.size() % 2) error("hex literal has an odd number of digits");
    std::vector<uint8_t> bytes(text.size() / 2);
    for (size_t i = 0; i < bytes.size(); ++i) {
      auto [p, ec] = std::from_chars(text.data() + 2 * i, text.data() + 2 * i + 2, bytes[i], 16);
      if (ec != std::errc() || p != text.data() + 2 * i + 2) error("bad hex digit in dense literal");
    }
    advance();
    if (tok_.offset != bodyEnd) error("unexpected text after the hex literal");
    // Narrow types keep one byte per element; Literal stores signed ones sign-extended
    // and booleans as 0/1, so such bytes go through setInt.
    bool narrow = width == 1 && bitWidth(dtype) < 8;
    auto fromBytes = [&](const Type& t, const uint8_t* data) {
      Literal lit(t);
      if (!narrow) {
        std::memcpy(lit.mutableStorage(), data, static_cast<size_t>(t.byteSize()));
        return lit;
      }
      uint64_t mask = (uint64_t{1} << bitWidth(dtype)) - 1;
      for (int64_t i = 0; i < t.numElements(); ++i)
        lit.setInt(i, isBool(dtype) ? data[i] != 0 : static_cast<int64_t>(data[i] & mask));
      return lit;
    };
    if (static_cast<int64_t>(bytes.size()) == n * width)
      return Attribute::dense(fromBytes(type, bytes.data()));
    // One element is a splat, except a boolean byte other than 0/1/0xFF, which older
    // MLIR wrote for up to 8 bit-packed booleans.
    bool packedBools = isBool(dtype) && n > 1 && bytes.size() == 1 && bytes[0] > 1 && bytes[0] != 0xFF;
    if (static_cast<int64_t>(bytes.size()) == width && !packedBools)
      return Attribute::dense(Literal::splat(type, fromBytes(Type::scalar(dtype), bytes.data()).storage()));
    if (isBool(dtype) && static_cast<int64_t>(bytes.size()) == (n + 7) / 8) {  // bit-packed i1
      Literal lit(type);
      for (int64_t i = 0; i < n; ++i) lit.setInt(i, (bytes[static_cast<size_t>(i / 8)] >> (i % 8)) & 1);
      return Attribute::dense(std::move(lit));
    }
    errorAt(bodyStart, "hex literal has " + std::to_string(bytes.size()) + " bytes but " + type.str() +
                           " needs " + std::to_string(n * width));
  }

  // Elements, possibly in nested lists; `shape` collects the list lengths per depth.
  std::vector<DenseElement> elements;
  Shape shape;
  bool splatForm = !tok_.is(Tok::LSquare);
  auto parseElement = [&]() {
    DenseElement e;
    if (consumeIf(Tok::LParen)) {
      e.isComplex = true;
      e.negative = consumeIf(Tok::Minus);
      e.tok = tok_;
      advance();
      expect(Tok::Comma, "in a complex element (re, im)");
      e.imagNegative = consumeIf(Tok::Minus);
      e.imag = tok_;
      advance();
      expect(Tok::RParen, "to close a complex element");
    } else {
      e.negative = consumeIf(Tok::Minus);
      e.tok = tok_;
      if (!tok_.is(Tok::Integer) && !tok_.is(Tok::Float) && !tok_.isKeyword("true") && !tok_.isKeyword("false"))
        error("expected a number in dense<...>, found '" + std::string(tok_.text) + "'");
      advance();
    }
    elements.push_back(e);
  };
  // Depth of the innermost lists (where the elements are), once known.
  size_t leafDepth = SIZE_MAX;
  std::function<void(size_t)> parseList = [&](size_t depth) {
    size_t listOffset = tok_.offset;
    expect(Tok::LSquare, "");
    int64_t count = 0;
    if (!tok_.is(Tok::RSquare)) {
      do {
        if (tok_.is(Tok::LSquare)) {
          if (depth + 1 > 64) error("dense literal is nested too deeply");
          if (leafDepth <= depth) errorAt(tok_.offset, "dense literal is not rectangular");
          parseList(depth + 1);
        } else {
          if (leafDepth != SIZE_MAX && leafDepth != depth) errorAt(tok_.offset, "dense literal is not rectangular");
          leafDepth = depth;
          parseElement();
        }
        ++count;
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RSquare, "to close a list in dense<...>");
    if (shape.size() <= depth) {
      shape.resize(depth + 1, -1);
    }
    if (shape[depth] == -1) shape[depth] = count;
    else if (shape[depth] != count) errorAt(listOffset, "dense literal is not rectangular");
  };
  if (splatForm) parseElement();
  else parseList(0);
  if (tok_.offset != bodyEnd) error("unexpected '" + std::string(tok_.text) + "' in dense<...>");

  if (!splatForm) {
    // `[]` and `[[], []]` describe empty tensors; otherwise the shape must match.
    bool empty = elements.empty();
    if (empty ? n != 0 : shape != type.shape()) {
      std::string got = "[";
      for (size_t i = 0; i < shape.size(); ++i) got += (i ? "x" : "") + std::to_string(shape[i]);
      errorAt(bodyStart, "dense literal has shape " + got + "] but the type is " + type.str());
    }
  }

  // A splat is converted as a one-element tensor, then spread without copying.
  Literal lit(splatForm ? Type::scalar(dtype) : type);
  auto floatOf = [&](const Token& t, bool negative, DType part) -> uint64_t {
    if (t.is(Tok::Integer) && isHex(t.text)) {
      uint64_t bits;
      if (negative || !tokenToU64(t.text, bits)) errorAt(t.offset, "bad float bit pattern");
      int bits_ = bitWidth(part);
      if (bits_ < 64 && bits >> bits_) errorAt(t.offset, "bit pattern is wider than " + std::string(name(part)));
      return bits;
    }
    if (!t.is(Tok::Integer) && !t.is(Tok::Float)) errorAt(t.offset, "expected a number for " + std::string(name(part)));
    uint64_t bits;
    if (!parseDecimalFloat((negative ? "-" : "") + std::string(t.text), part, bits))
      errorAt(t.offset, "bad number");
    return bits;
  };
  for (size_t i = 0; i < elements.size(); ++i) {
    const DenseElement& e = elements[i];
    int64_t index = static_cast<int64_t>(i);
    if (isComplex(dtype)) {
      if (!e.isComplex) errorAt(e.tok.offset, "expected a complex element (re, im)");
      DType part = complexPart(dtype);
      std::complex<double> v(bitsToFloat(floatOf(e.tok, e.negative, part), part),
                             bitsToFloat(floatOf(e.imag, e.imagNegative, part), part));
      lit.setComplex(index, v);
      continue;
    }
    if (e.isComplex) errorAt(e.tok.offset, "complex element for " + std::string(name(dtype)));
    if (isFloat(dtype)) {
      lit.setBits(index, floatOf(e.tok, e.negative, dtype));
      continue;
    }
    if (e.tok.isKeyword("true") || e.tok.isKeyword("false")) {
      if (!isBool(dtype) || e.negative) errorAt(e.tok.offset, "boolean element for " + std::string(name(dtype)));
      lit.setInt(index, e.tok.text == "true");
      continue;
    }
    if (!e.tok.is(Tok::Integer)) errorAt(e.tok.offset, "expected an integer for " + std::string(name(dtype)));
    uint64_t magnitude;
    if (!tokenToU64(e.tok.text, magnitude)) errorAt(e.tok.offset, "integer is too large");
    int bits = bitWidth(dtype);
    bool fits;
    if (e.negative) {
      fits = (isSignedInt(dtype) && (bits == 64 ? magnitude <= uint64_t{1} << 63
                                                : magnitude <= uint64_t{1} << (bits - 1)));
    } else {
      fits = bits == 64 || magnitude < (uint64_t{1} << bits);  // iN also takes 0..2^N-1
    }
    if (!fits) {
      errorAt(e.tok.offset, "integer " + std::string(e.negative ? "-" : "") + std::string(e.tok.text) +
                                " does not fit " + std::string(name(dtype)));
    }
    lit.setInt(index, e.negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude));
  }
  if (splatForm) return Attribute::dense(Literal::splat(type, lit.storage()));
  return Attribute::dense(std::move(lit));
}

// ---- locations ------------------------------------------------------------------------

size_t Parser::skipOptionalLoc() {
  if (!tok_.isKeyword("loc")) return 0;
  size_t offset = tok_.offset;
  advance();
  expect(Tok::LParen, "after 'loc'");
  for (int depth = 1; depth > 0;) {
    if (tok_.is(Tok::Eof)) errorAt(offset, "loc(...) is not closed");
    if (tok_.is(Tok::LParen)) ++depth;
    if (tok_.is(Tok::RParen)) --depth;
    advance();
  }
  return offset;
}

void Parser::parseOptionalLoc(Location& slot) {
  if (size_t offset = skipOptionalLoc()) pendingLocs_.push_back({&slot, offset});
}

void Parser::resolveLocations() {
  for (auto& [slot, offset] : pendingLocs_) *slot = parseLocationAt(offset, 0);
  pendingLocs_.clear();
}

Location Parser::parseLocationAt(size_t offset, int depth) {
  if (depth > 100) errorAt(offset, "location aliases refer to each other in a cycle");
  lexer_.resetTo(offset);
  advance();
  expectKeyword("loc", "");
  expect(Tok::LParen, "after 'loc'");
  // The inner grammar; nested locations are written without `loc(...)`.
  std::function<Location()> inner = [&]() -> Location {
    if (tok_.is(Tok::HashId)) {
      std::string alias(tok_.text);
      size_t at = tok_.offset;
      auto cached = resolvedLocAliases_.find(alias);
      if (cached == resolvedLocAliases_.end()) {
        auto def = locAliases_.find(alias);
        if (def == locAliases_.end()) errorAt(at, "undefined location alias " + alias);
        Location resolved = parseLocationAt(def->second, depth + 1);
        cached = resolvedLocAliases_.emplace(alias, resolved).first;
        lexer_.resetTo(at);  // continue after the alias
        advance();
      }
      advance();
      return cached->second;
    }
    if (consumeKeyword("unknown")) return Location();
    if (consumeKeyword("callsite")) {
      expect(Tok::LParen, "after 'callsite'");
      Location callee = inner();
      expectKeyword("at", "in callsite(... at ...)");
      Location caller = inner();
      expect(Tok::RParen, "to close callsite(...)");
      return Location::callSite(callee, caller);
    }
    if (consumeKeyword("fused")) {
      std::string metadata;
      if (tok_.is(Tok::Less)) {
        size_t metaStart = tok_.offset + 1;
        advance();
        size_t metaEnd = tok_.offset;
        Attribute meta = parseAttribute();
        metaEnd = tok_.offset;
        (void)meta;
        metadata = std::string(source_->text().substr(metaStart, metaEnd - metaStart));
        while (!metadata.empty() && metadata.back() == ' ') metadata.pop_back();
        expect(Tok::Greater, "to close fused<...>");
      }
      expect(Tok::LSquare, "after 'fused'");
      std::vector<Location> parts;
      if (!tok_.is(Tok::RSquare)) {
        do parts.push_back(inner());
        while (consumeIf(Tok::Comma));
      }
      expect(Tok::RSquare, "to close fused[...]");
      return Location::fused(std::move(parts), std::move(metadata));
    }
    if (tok_.is(Tok::String)) {
      std::string text;
      if (!unescape(tok_.text, text)) error("bad string in location");
      advance();
      if (consumeIf(Tok::Colon)) {
        int64_t line = parseI64("for the line");
        expect(Tok::Colon, "between line and column");
        int64_t col = parseI64("for the column");
        if (consumeKeyword("to")) {  // file ranges: "f":1:2 to 3:4 or "f":1:2 to :4
          if (!tok_.is(Tok::Colon)) parseI64("for the end line");
          expect(Tok::Colon, "in a location range");
          parseI64("for the end column");
        }
        if (line < 0 || col < 0 || line > UINT32_MAX || col > UINT32_MAX) error("bad line or column");
        return Location::file(std::move(text), static_cast<uint32_t>(line), static_cast<uint32_t>(col));
      }
      Location child;
      if (consumeIf(Tok::LParen)) {
        child = inner();
        expect(Tok::RParen, "to close the named location");
      }
      return Location::name(std::move(text), child);
    }
    error("expected a location, found '" + std::string(tok_.text) + "'");
  };
  Location loc = inner();
  expect(Tok::RParen, "to close loc(...)");
  return loc;
}

}  // namespace kiln::stablehlo
