// The lexer: token kinds, result-number suffixes, numbers, strings and comments.
#include "stablehlo/lexer.h"

#include <gtest/gtest.h>

namespace kiln::stablehlo {
namespace {

std::vector<std::pair<Tok, std::string>> lexAll(std::string_view text) {
  Lexer lexer(text);
  std::vector<std::pair<Tok, std::string>> out;
  for (Token t = lexer.next(); !t.is(Tok::Eof); t = lexer.next()) {
    out.emplace_back(t.kind, std::string(t.text));
    if (t.is(Tok::Error)) break;
  }
  return out;
}

TEST(LexerTest, TokenKinds) {
  auto toks = lexAll("%0:2 = stablehlo.add %x#1, %arg0 : (tensor<f32>) -> !stablehlo.token // note\n"
                     "@main @\"a b\" ^bb0 #loc3 #stablehlo.gather 0x7F800000 -1.5e+3 2 :: ?");
  std::vector<std::pair<Tok, std::string>> expected = {
      {Tok::ValueId, "%0"}, {Tok::Colon, ":"}, {Tok::Integer, "2"}, {Tok::Equal, "="},
      {Tok::BareId, "stablehlo.add"}, {Tok::ValueId, "%x#1"}, {Tok::Comma, ","}, {Tok::ValueId, "%arg0"},
      {Tok::Colon, ":"}, {Tok::LParen, "("}, {Tok::BareId, "tensor"}, {Tok::Less, "<"}, {Tok::BareId, "f32"},
      {Tok::Greater, ">"}, {Tok::RParen, ")"}, {Tok::Arrow, "->"}, {Tok::BangId, "!stablehlo.token"},
      {Tok::SymbolId, "@main"}, {Tok::SymbolId, "@\"a b\""}, {Tok::BlockId, "^bb0"}, {Tok::HashId, "#loc3"},
      {Tok::HashId, "#stablehlo.gather"}, {Tok::Integer, "0x7F800000"}, {Tok::Minus, "-"},
      {Tok::Float, "1.5e+3"}, {Tok::Integer, "2"}, {Tok::ColonColon, "::"}, {Tok::Question, "?"}};
  EXPECT_EQ(toks, expected);
}

TEST(LexerTest, ExponentNeedsDigits) {
  // `2e` is the integer 2 and the identifier e (as in `e5m10` formats after numbers).
  auto toks = lexAll("2e 3.0e-2");
  ASSERT_EQ(toks.size(), 3u);
  EXPECT_EQ(toks[0], std::make_pair(Tok::Integer, std::string("2")));
  EXPECT_EQ(toks[1], std::make_pair(Tok::BareId, std::string("e")));
  EXPECT_EQ(toks[2], std::make_pair(Tok::Float, std::string("3.0e-2")));
}

TEST(LexerTest, Errors) {
  EXPECT_EQ(lexAll("\"open").back().first, Tok::Error);
  EXPECT_EQ(lexAll("\"line\nbreak\"").back().first, Tok::Error);
  EXPECT_EQ(lexAll("`").back().first, Tok::Error);
  EXPECT_EQ(lexAll("% ").back().first, Tok::Error);
}

TEST(LexerTest, Unescape) {
  std::string s;
  ASSERT_TRUE(unescape("\"a\\\"b\\22c\\\\d\\0Ae\"", s));
  EXPECT_EQ(s, "a\"b\"c\\d\ne");
  EXPECT_FALSE(unescape("\"bad\\zz\"", s));
  EXPECT_FALSE(unescape("\"trailing\\\"", s));
}

}  // namespace
}  // namespace kiln::stablehlo
