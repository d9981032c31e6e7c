// IREE's util.global constants, as the IREE model files use them:
//   util.global private @w = dense<...> : tensor<4xf32>
//   util.global private @w {inlining_policy = ...} = #util.byte_pattern<1> : tensor<4xf32>
//   %p = util.global.address @w : !util.ptr<tensor<4xf32>>
//   %v = util.global.load.indirect %p : !util.ptr<tensor<4xf32>> -> tensor<4xf32>
//   %v = util.global.load @w : tensor<4xf32>
// An immutable global is a named constant, so kiln imports each load as a
// stablehlo.constant of its value; mutable globals (and stores) are unsupported.
#include "ir/ops/stablehlo.h"
#include "stablehlo/parser_impl.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::stablehlo {

namespace {

std::string symbolName(const Token& t) {
  std::string s(t.text.substr(1));
  if (!s.empty() && s[0] == '"') unescape(t.text.substr(1), s);
  return s;
}

}  // namespace

void Parser::skipPointerType() {
  if (!tok_.is(Tok::BangId) || tok_.text != "!util.ptr") error("expected !util.ptr<...>");
  advance();
  expect(Tok::Less, "after !util.ptr");
  for (int depth = 1; depth > 0; advance()) {
    if (tok_.is(Tok::Eof)) error("unterminated !util.ptr<...>");
    if (tok_.is(Tok::Less)) ++depth;
    if (tok_.is(Tok::Greater)) --depth;
  }
}

void Parser::parseGlobal() {
  size_t offset = tok_.offset;
  advance();  // util.global
  consumeKeyword("private") || consumeKeyword("public") || consumeKeyword("nested");
  if (tok_.isKeyword("mutable")) unsupportedAt(tok_.offset, "mutable util.global");
  Token name = expect(Tok::SymbolId, "for the global's name");
  if (tok_.is(Tok::LBrace)) parseAttrDict();  // inlining hints and the like: not needed
  if (!consumeIf(Tok::Equal)) unsupportedAt(offset, "util.global without an initial value");
  size_t valueOffset = tok_.offset;
  Attribute value = parseAttribute();
  Literal literal;
  if (value.is(Attribute::Kind::Dense)) {
    literal = value.asDense();
  } else if (value.is(Attribute::Kind::Opaque) && value.asString().rfind("#util.byte_pattern<", 0) == 0) {
    // Every byte of the tensor's storage holds the pattern value.
    std::string text = value.asString();
    int64_t pattern = std::stoll(text.substr(19, text.size() - 20));
    expect(Tok::Colon, "before the global's type");
    Type type = parseType();
    if (!type.isTensor()) errorAt(valueOffset, "a byte pattern needs a tensor type");
    std::vector<uint8_t> bytes(static_cast<size_t>(type.byteSize()), static_cast<uint8_t>(pattern));
    literal = Literal::fromStorage(type, std::move(bytes));
  } else {
    unsupportedAt(valueOffset, "util.global initial value " + printAttribute(value));
  }
  globals_[symbolName(name)] = std::move(literal);
  skipOptionalLoc();
}

Op* Parser::parseGlobalUse(Region& region, const ResultNames& names, size_t nameOffset) {
  std::string opName(tok_.text);
  advance();
  auto constantOf = [&](const std::string& symbol) -> Op* {
    auto it = globals_.find(symbol);
    if (it == globals_.end()) errorAt(nameOffset, "no util.global @" + symbol + " is defined before this use");
    NamedAttrList attrs{{"value", Attribute::dense(it->second)}};
    return finishOp(region, ops::Constant, {}, {it->second.type()}, std::move(attrs), {}, names, nameOffset);
  };
  if (opName == "util.global.address") {
    std::string symbol = symbolName(expect(Tok::SymbolId, "for the global"));
    expect(Tok::Colon, "before the pointer type");
    skipPointerType();
    if (names.groups.size() != 1 || names.total != 1) errorAt(nameOffset, "util.global.address has one result");
    pointers_[names.groups[0].first] = symbol;
    skipOptionalLoc();
    return nullptr;
  }
  if (opName == "util.global.load.indirect") {
    Token ptr = expect(Tok::ValueId, "for the global pointer");
    auto it = pointers_.find(std::string(ptr.text));
    if (it == pointers_.end()) errorAt(ptr.offset, std::string(ptr.text) + " is not a util.global.address");
    expect(Tok::Colon, "before the pointer type");
    skipPointerType();
    expect(Tok::Arrow, "before the loaded type");
    Type type = parseType();
    Op* op = constantOf(it->second);
    if (op->result()->type() != type) errorAt(nameOffset, "the global has type " + op->result()->type().str());
    return op;
  }
  if (opName == "util.global.load") {
    std::string symbol = symbolName(expect(Tok::SymbolId, "for the global"));
    expect(Tok::Colon, "before the loaded type");
    Type type = parseType();
    Op* op = constantOf(symbol);
    if (op->result()->type() != type) errorAt(nameOffset, "the global has type " + op->result()->type().str());
    return op;
  }
  unsupportedAt(nameOffset, "op '" + opName + "' (only immutable util.global loads are supported)");
}

}  // namespace kiln::stablehlo
