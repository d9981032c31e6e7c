// Parsing loc(...) source locations. They are read at the end of each file part, since
// `#locN` aliases may be defined after the ops that use them.
#include <functional>

#include "stablehlo/parser_impl.h"

namespace kiln::stablehlo {

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
    NestingGuard guard(*this);
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
