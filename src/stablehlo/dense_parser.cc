// Parsing dense<...> literals: splats, nested lists, complex pairs, special floats and
// "0x..." hex storage, converted to Literals once the type after them is known.
#include <array>
#include <cstring>
#include <functional>

#include "ir/float_format.h"
#include "stablehlo/parser_impl.h"

namespace kiln::stablehlo {

bool decodeHex(std::string_view digits, uint8_t* out) {
  static const auto kValue = [] {
    std::array<int8_t, 256> v;
    v.fill(-1);
    for (int i = 0; i < 10; ++i) v['0' + i] = static_cast<int8_t>(i);
    for (int i = 0; i < 6; ++i) v['a' + i] = v['A' + i] = static_cast<int8_t>(10 + i);
    return v;
  }();
  int bad = 0;
  for (size_t i = 0; i + 1 < digits.size(); i += 2) {
    int hi = kValue[static_cast<unsigned char>(digits[i])];
    int lo = kValue[static_cast<unsigned char>(digits[i + 1])];
    bad |= hi | lo;  // negative when either is not a hex digit
    *out++ = static_cast<uint8_t>((hi << 4) | (lo & 15));
  }
  return bad >= 0;
}

Literal literalFromBytes(const Type& type, const uint8_t* data) {
  // Narrow types keep one byte per element; Literal stores signed ones sign-extended
  // and booleans as 0/1, so such bytes go through setInt.
  const DType dtype = type.dtype();
  Literal lit(type);
  if (!(storageBytes(dtype) == 1 && bitWidth(dtype) < 8)) {
    std::memcpy(lit.mutableStorage(), data, static_cast<size_t>(type.byteSize()));
    return lit;
  }
  uint64_t mask = (uint64_t{1} << bitWidth(dtype)) - 1;
  for (int64_t i = 0; i < type.numElements(); ++i)
    lit.setInt(i, isBool(dtype) ? data[i] != 0 : static_cast<int64_t>(data[i] & mask));
  return lit;
}

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
    if (!decodeHex(text, bytes.data())) error("bad hex digit in dense literal");
    advance();
    if (tok_.offset != bodyEnd) error("unexpected text after the hex literal");
    bool narrow = width == 1 && bitWidth(dtype) < 8;
    if (static_cast<int64_t>(bytes.size()) == n * width)
      return Attribute::dense(narrow ? literalFromBytes(type, bytes.data())
                                     : Literal::fromStorage(type, std::move(bytes)));
    // One element is a splat, except a boolean byte other than 0/1/0xFF, which older
    // MLIR wrote for up to 8 bit-packed booleans.
    bool packedBools = isBool(dtype) && n > 1 && bytes.size() == 1 && bytes[0] > 1 && bytes[0] != 0xFF;
    if (static_cast<int64_t>(bytes.size()) == width && !packedBools)
      return Attribute::dense(
          Literal::splat(type, literalFromBytes(Type::scalar(dtype), bytes.data()).storage()));
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
    if (t.is(Tok::Integer) && isHexLiteral(t.text)) {
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

}  // namespace kiln::stablehlo
