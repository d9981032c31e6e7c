// Parsing numbers, types and attributes (dense literals: dense_parser.cc; locations:
// location_parser.cc).
#include <charconv>

#include "ir/attr_check.h"
#include "ir/attr_records.h"
#include "ir/float_format.h"
#include "stablehlo/parser_impl.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::stablehlo {

// ---- numbers --------------------------------------------------------------------------

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

bool isHexLiteral(std::string_view text) {
  return text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}


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
  if (tok_.is(Tok::Integer) && isHexLiteral(tok_.text)) {
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
  NestingGuard guard(*this);
  size_t offset = tok_.offset;
  if (tok_.is(Tok::BangId)) {
    std::string name(tok_.text);
    if (name == "!stablehlo.token" || name == "!mhlo.token") {
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
  NestingGuard guard(*this);
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
      if (word == "dense_resource") {
        advance();
        return parseDenseResource(offset);
      }
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
  name = stablehloAttrName(name);
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
  // An enum with its kind in the name: #stablehlo.result_accuracy_mode<TOLERANCE>, and
  // MHLO's #mhlo.rng_distribution<UNIFORM> / #mhlo.rng_algorithm<DEFAULT>.
  if (!enumValues(recordName).empty() && tok_.is(Tok::Less)) {
    advance();
    Token value = expect(Tok::BareId, "for the enum value");
    if (!isEnumValue(recordName, value.text))
      errorAt(value.offset, "'" + std::string(value.text) + "' is not a " + recordName + " value");
    expect(Tok::Greater, "to close the enum attribute");
    return Attribute::enumValue(recordName, std::string(value.text));
  }
  if (const RecordSchema* schema = recordSchema(recordName); schema && tok_.is(Tok::Less)) {
    advance();
    return parseRecordBody(*schema, hash.offset);
  }
  // Anything else (#sdy.sharding<...>, #mhlo.xyz<...>) is kept verbatim.
  std::string_view body = tok_.is(Tok::Less) ? angleText("attribute " + name) : std::string_view();
  return Attribute::opaque(std::string(hash.text) + std::string(body));
}

std::string_view Parser::angleText(const std::string& what) {
  const size_t start = tok_.offset;
  size_t end = start;
  int depth = 0;
  do {
    if (tok_.is(Tok::Eof)) errorAt(start, "unterminated " + what + " <...");
    if (tok_.is(Tok::Less)) ++depth;
    if (tok_.is(Tok::Greater)) --depth;
    end = tok_.offset + tok_.text.size();
    advance();
  } while (depth > 0);
  return source_->text().substr(start, end - start);
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
  NamedAttrList given;
  for (size_t i = 0; i < schema.fields.size(); ++i)
    if (values[i]) given.push_back({std::string(schema.fields[i].name), values[i]});
  return makeRecord(schema.name, given);
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
  return ConvDims{ib, if_, is, ki, ko, ks, ob, of, os}.toAttr();
}

}  // namespace kiln::stablehlo
