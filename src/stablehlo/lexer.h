// The MLIR token stream: identifiers, %values, @symbols, ^blocks, #attributes, !types,
// numbers, strings and punctuation, with `//` comments skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/source.h"

namespace kiln::stablehlo {

enum class Tok : uint8_t {
  Eof,
  Error,       // an invalid character or unterminated literal; text says what
  BareId,      // func.func, stablehlo.add, tensor, x3xf32, true
  ValueId,     // %name, %0, %arg0#1 (a trailing #N result number is part of the token)
  SymbolId,    // @main, @"quoted name"
  BlockId,     // ^bb0
  HashId,      // #loc3, #stablehlo, #stablehlo.gather
  BangId,      // !stablehlo.token, !quant.uniform
  Integer,     // 42, 0x1F
  Float,       // 1.5, 2e-3, 1.0E+10
  String,      // "text" (text() keeps the quotes; use unescape())
  LParen, RParen, LSquare, RSquare, LBrace, RBrace, Less, Greater,
  Comma, Colon, Equal, Arrow, Minus, Plus, Star, Question, ColonColon,
};

const char* tokName(Tok kind);

struct Token {
  Tok kind = Tok::Eof;
  std::string_view text;
  size_t offset = 0;  // byte offset in the buffer
  bool is(Tok k) const { return kind == k; }
  bool isKeyword(std::string_view word) const { return kind == Tok::BareId && text == word; }
};

class Lexer {
 public:
  // Lexes `text`, which starts at byte `baseOffset` of its source buffer.
  Lexer(std::string_view text, size_t baseOffset = 0) : text_(text), base_(baseOffset) {}

  Token next();
  // Byte offset (in the source buffer) of the next unread character.
  size_t offset() const { return base_ + pos_; }
  // Moves the read position to buffer offset `offset` (for backtracking and for
  // character-level parsing of tensor shapes).
  void resetTo(size_t offset) { pos_ = offset - base_; }
  // The raw characters from the read position on (for dimension lists like 2x3xf32).
  std::string_view rest() const { return text_.substr(pos_); }

 private:
  Token make(Tok kind, size_t start) const { return {kind, text_.substr(start, pos_ - start), base_ + start}; }
  Token error(size_t start, const char* message);
  void skipSpaceAndComments();
  Token lexNumber(size_t start);
  Token lexString(size_t start);
  Token lexPrefixed(size_t start, Tok kind);

  std::string_view text_;
  size_t base_;
  size_t pos_ = 0;
  std::string errorMessage_;
};

// Decodes the escapes of a string token ("a\"b\0A" -> a"b<newline>); false when invalid.
bool unescape(std::string_view token, std::string& out);

}  // namespace kiln::stablehlo
