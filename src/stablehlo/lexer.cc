// The MLIR lexer. It never allocates for tokens: each token is a view into the source.
#include "stablehlo/lexer.h"

#include <cctype>

namespace kiln::stablehlo {

const char* tokName(Tok kind) {
  switch (kind) {
    case Tok::Eof: return "end of input";
    case Tok::Error: return "invalid token";
    case Tok::BareId: return "identifier";
    case Tok::ValueId: return "value name (%...)";
    case Tok::SymbolId: return "symbol (@...)";
    case Tok::BlockId: return "block label (^...)";
    case Tok::HashId: return "attribute (#...)";
    case Tok::BangId: return "type (!...)";
    case Tok::Integer: return "integer";
    case Tok::Float: return "float";
    case Tok::String: return "string";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LSquare: return "'['";
    case Tok::RSquare: return "']'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Less: return "'<'";
    case Tok::Greater: return "'>'";
    case Tok::Comma: return "','";
    case Tok::Colon: return "':'";
    case Tok::Equal: return "'='";
    case Tok::Arrow: return "'->'";
    case Tok::Minus: return "'-'";
    case Tok::Plus: return "'+'";
    case Tok::Star: return "'*'";
    case Tok::Question: return "'?'";
    case Tok::ColonColon: return "'::'";
  }
  return "token";
}

namespace {
bool isIdStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

Token Lexer::error(size_t start, const char* message) {
  errorMessage_ = message;
  Token t{Tok::Error, errorMessage_, base_ + start};
  pos_ = text_.size();  // nothing after an invalid token is read
  return t;
}

void Lexer::skipSpaceAndComments() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

Token Lexer::next() {
  skipSpaceAndComments();
  size_t start = pos_;
  if (pos_ >= text_.size()) return make(Tok::Eof, start);
  char c = text_[pos_++];
  switch (c) {
    case '(': return make(Tok::LParen, start);
    case ')': return make(Tok::RParen, start);
    case '[': return make(Tok::LSquare, start);
    case ']': return make(Tok::RSquare, start);
    case '{': return make(Tok::LBrace, start);
    case '}': return make(Tok::RBrace, start);
    case '<': return make(Tok::Less, start);
    case '>': return make(Tok::Greater, start);
    case ',': return make(Tok::Comma, start);
    case '=': return make(Tok::Equal, start);
    case '+': return make(Tok::Plus, start);
    case '*': return make(Tok::Star, start);
    case '?': return make(Tok::Question, start);
    case ':':
      if (pos_ < text_.size() && text_[pos_] == ':') {
        ++pos_;
        return make(Tok::ColonColon, start);
      }
      return make(Tok::Colon, start);
    case '-':
      if (pos_ < text_.size() && text_[pos_] == '>') {
        ++pos_;
        return make(Tok::Arrow, start);
      }
      return make(Tok::Minus, start);
    case '"': return lexString(start);
    case '%': return lexPrefixed(start, Tok::ValueId);
    case '@': return lexPrefixed(start, Tok::SymbolId);
    case '^': return lexPrefixed(start, Tok::BlockId);
    case '#': return lexPrefixed(start, Tok::HashId);
    case '!': return lexPrefixed(start, Tok::BangId);
    default: break;
  }
  if (isDigit(c)) return lexNumber(start);
  if (isIdStart(c)) {
    while (pos_ < text_.size() && isIdChar(text_[pos_])) ++pos_;
    return make(Tok::BareId, start);
  }
  return error(start, "unexpected character");
}

Token Lexer::lexNumber(size_t start) {
  // Hex integers: 0x1F (also the bit patterns MLIR prints for special floats).
  if (text_[start] == '0' && pos_ < text_.size() && (text_[pos_] == 'x' || text_[pos_] == 'X') &&
      pos_ + 1 < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_ + 1]))) {
    ++pos_;
    while (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return make(Tok::Integer, start);
  }
  while (pos_ < text_.size() && isDigit(text_[pos_])) ++pos_;
  bool isFloat = false;
  if (pos_ < text_.size() && text_[pos_] == '.') {
    isFloat = true;
    ++pos_;
    while (pos_ < text_.size() && isDigit(text_[pos_])) ++pos_;
  }
  // An exponent needs digits after it; otherwise `e` starts the next token.
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    size_t p = pos_ + 1;
    if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
    if (p < text_.size() && isDigit(text_[p])) {
      isFloat = true;
      pos_ = p;
      while (pos_ < text_.size() && isDigit(text_[pos_])) ++pos_;
    }
  }
  return make(isFloat ? Tok::Float : Tok::Integer, start);
}

Token Lexer::lexString(size_t start) {
  while (pos_ < text_.size()) {
    char c = text_[pos_++];
    if (c == '"') return make(Tok::String, start);
    if (c == '\\') {
      if (pos_ >= text_.size()) break;
      ++pos_;
    } else if (c == '\n') {
      return error(start, "string literal is not terminated before the end of the line");
    }
  }
  return error(start, "string literal is not terminated");
}

Token Lexer::lexPrefixed(size_t start, Tok kind) {
  // @"quoted symbol"
  if (kind == Tok::SymbolId && pos_ < text_.size() && text_[pos_] == '"') {
    ++pos_;
    Token s = lexString(pos_ - 1);
    if (s.kind == Tok::Error) return s;
    return make(Tok::SymbolId, start);
  }
  size_t nameStart = pos_;
  if (pos_ < text_.size() && isDigit(text_[pos_])) {
    while (pos_ < text_.size() && isDigit(text_[pos_])) ++pos_;
  } else {
    while (pos_ < text_.size() && (isIdChar(text_[pos_]) || text_[pos_] == '-')) ++pos_;
  }
  if (pos_ == nameStart) return error(start, "expected a name after the sigil");
  // %x#2: a use of result 2 of the group %x.
  if (kind == Tok::ValueId && pos_ + 1 < text_.size() && text_[pos_] == '#' && isDigit(text_[pos_ + 1])) {
    ++pos_;
    while (pos_ < text_.size() && isDigit(text_[pos_])) ++pos_;
  }
  return make(kind, start);
}

bool unescape(std::string_view token, std::string& out) {
  out.clear();
  if (token.size() < 2 || token.front() != '"' || token.back() != '"') return false;
  std::string_view body = token.substr(1, token.size() - 2);
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= body.size()) return false;
    char e = body[i];
    switch (e) {
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      default: {
        auto hex = [](char h) -> int {
          if (h >= '0' && h <= '9') return h - '0';
          if (h >= 'a' && h <= 'f') return h - 'a' + 10;
          if (h >= 'A' && h <= 'F') return h - 'A' + 10;
          return -1;
        };
        if (i + 1 >= body.size() || hex(e) < 0 || hex(body[i + 1]) < 0) return false;
        out += static_cast<char>(hex(e) * 16 + hex(body[i + 1]));
        ++i;
      }
    }
  }
  return true;
}

}  // namespace kiln::stablehlo
