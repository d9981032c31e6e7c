// dense_resource<name> constants and the blob section they name, as MLIR writes them at
// the end of a file:
//
//   {-#
//     dialect_resources: {
//       builtin: {
//         name: "0x04000000CDCC8C3F..."
//       }
//     }
//   #-}
//
// A blob is hex: four bytes of alignment (a little-endian power of two), then the raw
// little-endian elements. The data becomes an ordinary dense literal: kiln's IR holds
// constants as literals, so the printer writes it back as dense<"0x..."> (see
// printer.cc), and a program reads the same whether its weights were inline or in blobs.
// JAX writes dense_resource<__elided__> when it prints a program without its weights:
// that reads as zeros for the constant to claim (ir/elided_constants.h).
#include <cstring>

#include "stablehlo/parser_impl.h"
#include "support/error.h"

namespace kiln::stablehlo {

bool Parser::atResourceSection() const {
  if (!tok_.is(Tok::LBrace)) return false;
  std::string_view text = source_->text();
  return tok_.offset + 2 < end_ && text[tok_.offset + 1] == '-' && text[tok_.offset + 2] == '#';
}

void Parser::parseResourceSection(size_t braceOffset) {
  sawResources_ = true;
  const size_t start = braceOffset + 3;  // after `{-#`
  Lexer lex(source_->text().substr(start, end_ - start), start);
  Token t = lex.next();
  auto fail = [&](const std::string& message) {
    errorAt(t.offset, t.is(Tok::Error) ? std::string(t.text) : message);
  };
  auto expectTok = [&](Tok kind, const std::string& what) {
    if (!t.is(kind)) {
      if (t.is(Tok::Eof)) errorAt(braceOffset, "the resource section {-# ... #-} is not closed");
      fail("expected " + std::string(tokName(kind)) + " " + what + " in the resource section");
    }
    t = lex.next();
  };
  auto key = [&](const char* what) {
    std::string name;
    if (t.is(Tok::BareId))
      name = std::string(t.text);
    else if (!t.is(Tok::String) || !unescape(t.text, name)) {
      if (t.is(Tok::Eof)) errorAt(braceOffset, "the resource section {-# ... #-} is not closed");
      fail(std::string("expected ") + what + " in the resource section");
    }
    t = lex.next();
    return name;
  };

  // group: { owner: { name: value, ... }, ... }, ...  #-}
  while (!(t.is(Tok::HashId) && t.text == "#-")) {
    std::string group = key("a group name (dialect_resources)");
    expectTok(Tok::Colon, "after '" + group + "'");
    expectTok(Tok::LBrace, "to open '" + group + "'");
    while (!t.is(Tok::RBrace)) {
      std::string owner = key("a dialect name (builtin)");
      expectTok(Tok::Colon, "after '" + owner + "'");
      expectTok(Tok::LBrace, "to open '" + owner + "'");
      const bool blobs = group == "dialect_resources" && owner == "builtin";
      while (!t.is(Tok::RBrace)) {
        size_t nameOffset = t.offset;
        std::string name = key("a resource name");
        expectTok(Tok::Colon, "after '" + name + "'");
        if (blobs) {
          if (!t.is(Tok::String)) fail("expected the hex string of resource '" + name + "'");
          ResourceBlob blob{t.text.substr(1, t.text.size() - 2), t.offset};
          if (!blobs_.emplace(name, blob).second)
            errorAt(nameOffset, "resource '" + name + "' is given twice");
          t = lex.next();
        } else if (t.is(Tok::String) || t.is(Tok::BareId) || t.is(Tok::Integer)) {
          t = lex.next();  // other resources (mlir_reproducer's options) are not needed
        } else {
          fail("expected a value for '" + name + "'");
        }
        if (!t.is(Tok::Comma)) break;
        t = lex.next();
      }
      expectTok(Tok::RBrace, "to close '" + owner + "'");
      if (!t.is(Tok::Comma)) break;
      t = lex.next();
    }
    expectTok(Tok::RBrace, "to close '" + group + "'");
    if (!t.is(Tok::Comma)) break;
    t = lex.next();
  }
  if (!(t.is(Tok::HashId) && t.text == "#-")) fail("expected '#-}' to close the resource section");
  t = lex.next();
  if (!t.is(Tok::RBrace) || t.offset != lex.offset() - 1 || source_->text()[t.offset - 1] != '-')
    fail("expected '#-}' to close the resource section");
  resourcesEnd_ = lex.offset();
}

const std::unordered_map<std::string, Parser::ResourceBlob>& Parser::resourceBlobs() {
  if (sawResources_) return blobs_;
  // The section ends the file: find its `{-#` without parsing what comes before.
  Lexer lex(source_->text().substr(begin_, end_ - begin_), begin_);
  for (Token t = lex.next(); !t.is(Tok::Eof) && !t.is(Tok::Error); t = lex.next()) {
    std::string_view text = source_->text();
    if (t.is(Tok::LBrace) && t.offset + 2 < end_ && text[t.offset + 1] == '-' &&
        text[t.offset + 2] == '#') {
      parseResourceSection(t.offset);
      break;
    }
  }
  sawResources_ = true;
  return blobs_;
}

Attribute Parser::parseDenseResource(size_t keywordOffset) {
  expect(Tok::Less, "after 'dense_resource'");
  Token nameTok = tok_;
  std::string name;
  if (tok_.is(Tok::BareId))
    name = std::string(tok_.text);
  else if (!tok_.is(Tok::String) || !unescape(tok_.text, name))
    error("expected a resource name in dense_resource<...>");
  advance();
  expect(Tok::Greater, "to close dense_resource<...>");
  expect(Tok::Colon, "after dense_resource<...> (it needs its type)");
  size_t typeOffset = tok_.offset;
  Type type = parseType();
  if (!type.isTensor()) errorAt(typeOffset, "dense_resource needs a tensor type");

  if (name == "__elided__") {
    if (unclaimedElided_++ == 0) firstUnclaimedElided_ = keywordOffset;
    return Attribute::dense(Literal::splat(type, Literal(Type::scalar(type.dtype())).storage()));
  }
  const auto& blobs = resourceBlobs();
  auto it = blobs.find(name);
  if (it == blobs.end())
    errorAt(nameTok.offset,
            "unknown resource '" + name + "' in dense_resource<...>" +
                (blobs.empty()
                     ? " (the file has no {-# dialect_resources: { builtin: ... } #-} section)"
                     : " (not in the file's dialect_resources section)"));

  // "0x" AAAAAAAA DATA...: the alignment, then the elements.
  std::string_view hex = it->second.hex;
  const size_t at = it->second.offset;
  if (hex.size() < 2 || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X'))
    errorAt(at, "resource '" + name + "' is not a hex string \"0x...\"");
  hex.remove_prefix(2);
  if (hex.size() % 2) errorAt(at, "resource '" + name + "' has an odd number of hex digits");
  if (hex.size() < 8)
    errorAt(at, "resource '" + name + "' is shorter than its 4-byte alignment prefix");
  uint8_t prefix[4];
  if (!decodeHex(hex.substr(0, 8), prefix)) errorAt(at, "bad hex digit in resource '" + name + "'");
  const uint32_t alignment =
      prefix[0] | prefix[1] << 8 | prefix[2] << 16 | static_cast<uint32_t>(prefix[3]) << 24;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    errorAt(at, "resource '" + name + "' starts with alignment " + std::to_string(alignment) +
                    ", not a power of two (a blob is \"0x\", a 4-byte little-endian alignment, "
                    "then the data)");
  hex.remove_prefix(8);
  const size_t bytes = hex.size() / 2;
  const size_t needed =
      static_cast<size_t>(type.numElements()) * static_cast<size_t>(storageBytes(type.dtype()));
  if (bytes != needed)
    errorAt(nameTok.offset, "resource '" + name + "' holds " + std::to_string(bytes) +
                                " bytes of data but " + type.str() + " needs " +
                                std::to_string(needed));
  std::vector<uint8_t> data(bytes);
  if (!decodeHex(hex, data.data())) errorAt(at, "bad hex digit in resource '" + name + "'");
  if (storageBytes(type.dtype()) == 1 && bitWidth(type.dtype()) < 8)
    return Attribute::dense(literalFromBytes(type, data.data()));
  return Attribute::dense(Literal::fromStorage(type, std::move(data)));
}

}  // namespace kiln::stablehlo
