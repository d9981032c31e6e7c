// The parser's core: tokens and errors, values, regions and generic-form ops (modules and
// functions: module_parser.cc; files: parse_file.cc).
#include "stablehlo/parser.h"

#include "ir/elided_constants.h"
#include "ir/ops/stablehlo.h"
#include "ir/sharding_attrs.h"
#include "ir/verifier.h"
#include "stablehlo/bytecode.h"
#include "stablehlo/parser_impl.h"
#include "support/error.h"

namespace kiln::stablehlo {

// ---- tokens and errors --------------------------------------------------------------

Parser::Parser(SourceRef source, size_t begin, size_t end)
    : source_(std::move(source)),
      end_(end),
      lexer_(source_->text().substr(begin, end - begin), begin),
      begin_(begin) {
  advance();
}

Token Parser::peek() {
  size_t resume = lexer_.offset();
  Token next = lexer_.next();
  lexer_.resetTo(resume);
  return next;
}

bool Parser::consumeIf(Tok kind) {
  if (!tok_.is(kind)) return false;
  advance();
  return true;
}

bool Parser::consumeKeyword(std::string_view word) {
  if (!tok_.isKeyword(word)) return false;
  advance();
  return true;
}

std::string describe(const Token& t) {
  if (t.is(Tok::Eof)) return "end of input";
  if (t.is(Tok::Error)) return std::string(t.text);
  std::string text(t.text.substr(0, 40));
  return "'" + text + (t.text.size() > 40 ? "...'" : "'");
}

Token Parser::expect(Tok kind, std::string_view context) {
  if (!tok_.is(kind)) {
    error("expected " + std::string(tokName(kind)) + " " + std::string(context) + ", found " +
          describe(tok_));
  }
  Token t = tok_;
  advance();
  return t;
}

void Parser::expectKeyword(std::string_view word, std::string_view context) {
  if (!consumeKeyword(word))
    error("expected '" + std::string(word) + "' " + std::string(context) + ", found " + describe(tok_));
}

void Parser::errorAt(size_t offset, const std::string& message) const {
  // Lexer errors carry their own message.
  throw Error(ErrorKind::Parse, message, source_, posOf(offset));
}

void Parser::unsupportedAt(size_t offset, const std::string& what) const {
  throw Error(ErrorKind::Unsupported, "unsupported: " + what, source_, posOf(offset));
}

Parser::NestingGuard::NestingGuard(Parser& p) : parser_(p) {
  if (++parser_.depth_ > kMaxNesting) {
    --parser_.depth_;
    parser_.error("nesting is too deep (more than " + std::to_string(kMaxNesting) + " levels)");
  }
}

// ---- values -----------------------------------------------------------------------

void Parser::define(const std::string& name, std::vector<Value*> values, size_t offset) {
  auto& scope = scopes_.back();
  if (!scope.emplace(name, std::move(values)).second)
    errorAt(offset, "redefinition of value " + name);
}

Value* Parser::parseValueUse() {
  if (!tok_.is(Tok::ValueId)) error("expected a value (%name), found " + describe(tok_));
  std::string_view text = tok_.text;
  size_t offset = tok_.offset;
  size_t index = 0;
  bool hasIndex = false;
  if (size_t hash = text.find('#'); hash != std::string_view::npos) {
    std::string digits(text.substr(hash + 1));
    if (digits.size() > 9) errorAt(offset, "result number is too large");
    index = std::stoul(digits);
    hasIndex = true;
    text = text.substr(0, hash);
  }
  std::string name(text);
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->find(name);
    if (it == scope->end()) continue;
    const std::vector<Value*>& group = it->second;
    if (!hasIndex && group.size() != 1)
      errorAt(offset, name + " names " + std::to_string(group.size()) +
                          " results; use " + name + "#N to pick one");
    if (index >= group.size())
      errorAt(offset, name + " has " + std::to_string(group.size()) + " results, no #" +
                          std::to_string(index));
    advance();
    return group[index];
  }
  errorAt(offset, "use of undefined value " + name);
}

std::vector<Value*> Parser::parseValueUseList() {
  std::vector<Value*> values;
  if (!atValueUse()) return values;
  values.push_back(parseValueUse());
  while (tok_.is(Tok::Comma) && peek().is(Tok::ValueId)) {
    advance();
    values.push_back(parseValueUse());
  }
  return values;
}

// ---- regions and ops ----------------------------------------------------------------

void Parser::parseBlockArgs(std::vector<std::pair<std::string, Type>>& args,
                            std::vector<size_t>* locOffsets) {
  expect(Tok::LParen, "to open the block arguments");
  if (!tok_.is(Tok::RParen)) {
    do {
      Token name = expect(Tok::ValueId, "for a block argument");
      if (name.text.find('#') != std::string_view::npos) errorAt(name.offset, "a block argument cannot have a #N suffix");
      expect(Tok::Colon, "after the block argument name");
      Type type = parseType();
      size_t loc = skipOptionalLoc();  // kept only for a function's entry block
      if (locOffsets) locOffsets->push_back(loc);
      args.emplace_back(std::string(name.text), std::move(type));
    } while (consumeIf(Tok::Comma));
  }
  expect(Tok::RParen, "to close the block arguments");
}

std::unique_ptr<Region> Parser::parseRegion(const std::vector<std::pair<std::string, Type>>& outerArgs) {
  NestingGuard guard(*this);
  auto region = std::make_unique<Region>();
  size_t open = tok_.offset;
  expect(Tok::LBrace, "to open a region");
  pushScope();
  std::vector<std::pair<std::string, Type>> args = outerArgs;
  if (tok_.is(Tok::BlockId)) {
    advance();
    if (!outerArgs.empty()) error("this region's arguments are declared before it; remove the block label");
    if (tok_.is(Tok::LParen)) parseBlockArgs(args);
    expect(Tok::Colon, "after the block label");
  }
  for (const auto& [name, type] : args) define(name, {region->addArgument(type)}, open);
  while (!tok_.is(Tok::RBrace)) {
    if (tok_.is(Tok::Eof)) errorAt(open, "region is not closed");
    if (tok_.is(Tok::BlockId)) unsupportedAt(tok_.offset, "regions with several blocks");
    parseOperation(*region);
  }
  advance();
  popScope();
  return region;
}

void Parser::parseOperation(Region& region) {
  const size_t elidedBefore = unclaimedElided_;
  ResultNames names;
  names.offset = tok_.offset;
  if (tok_.is(Tok::ValueId)) {
    do {
      Token name = expect(Tok::ValueId, "for a result name");
      if (name.text.find('#') != std::string_view::npos)
        errorAt(name.offset, "a result name cannot have a #N suffix");
      unsigned count = 1;
      if (consumeIf(Tok::Colon)) {
        int64_t n = parseI64("as the number of results");
        if (n < 1 || n > 100000) errorAt(name.offset, "bad result count " + std::to_string(n));
        count = static_cast<unsigned>(n);
      }
      names.groups.emplace_back(std::string(name.text), count);
      names.total += count;
    } while (consumeIf(Tok::Comma));
    expect(Tok::Equal, "after the result names");
  }
  size_t nameOffset = tok_.offset;
  Op* op = nullptr;
  std::string opName(tok_.text);
  if (tok_.is(Tok::String)) {
    if (!unescape(tok_.text, opName)) error("bad op name string");
    op = parseGenericOp(region, names, nameOffset);
  } else if (tok_.is(Tok::BareId)) {
    if (tok_.isKeyword("tensor.extract")) {
      parseTensorExtract(names, nameOffset);
      return;
    }
    if (tok_.text.rfind("sdy.", 0) == 0) {
      op = parseSdyOp(region, names, nameOffset);
      parseOptionalLoc(op->loc);
      return;
    }
    if (tok_.text.rfind("util.global.", 0) == 0) {
      op = parseGlobalUse(region, names, nameOffset);
      if (!op) return;  // util.global.address defines a pointer, not a value
      parseOptionalLoc(op->loc);
      return;
    }
    std::optional<OpCode> code = lookupOpNamed(tok_.text, nameOffset);
    if (!code) {
      bool known = opName.rfind("stablehlo.", 0) == 0 || opName.rfind("chlo.", 0) == 0;
      if (known) error("unknown op '" + opName + "'");
      unsupportedAt(nameOffset, "op '" + opName + "' (dialect not supported)");
    }
    advance();
    op = parsePrettyOp(region, *code, names, nameOffset);
  } else {
    error("expected an op, found " + describe(tok_));
  }
  if (opName.rfind("mhlo.", 0) == 0) importMhloAttrs(opName, *op, nameOffset);
  if (unclaimedElided_ > elidedBefore) {
    // dense_resource<__elided__> read into this op (its nested ops claimed theirs).
    if (op->info().category != OpCategory::Constant)
      unsupportedAt(firstUnclaimedElided_, "dense_resource<__elided__> in " +
                                               std::string(op->name()) +
                                               " (only constants may have elided data)");
    op->setAttr(std::string(kElidedAttr), Attribute::unit());
    unclaimedElided_ = elidedBefore;
  }
  parseOptionalLoc(op->loc);
}

Op* Parser::finishOp(Region& region, OpCode code, const std::vector<Value*>& operands,
                     const TypeList& resultTypes, NamedAttrList attrs,
                     std::vector<std::unique_ptr<Region>> regions, const ResultNames& names,
                     size_t nameOffset) {
  if (names.total != resultTypes.size()) {
    errorAt(names.groups.empty() ? nameOffset : names.offset,
            std::string(opInfo(code).name) + " has " + std::to_string(resultTypes.size()) +
                " result(s) but " + std::to_string(names.total) + " name(s) are given");
  }
  if (code == ops::CustomCall) importCustomCall(code, operands, resultTypes, attrs, nameOffset);
  std::unique_ptr<Op> op =
      Op::create(code, operands, resultTypes, std::move(attrs), std::move(regions));
  op->pos = posOf(nameOffset);
  Op* raw = region.push_back(std::move(op));
  size_t next = 0;
  for (const auto& [name, count] : names.groups) {
    std::vector<Value*> group;
    for (unsigned i = 0; i < count; ++i) group.push_back(raw->result(next++));
    define(name, std::move(group), names.offset);
  }
  ++opCount_;
  return raw;
}

// Custom calls that stand for ops (StableHLO's portable form of CHLO/MHLO ops, which
// JAX and torch_xla write: @mhlo.erf, @mhlo.topk, ... with their attributes in
// mhlo.attributes) become those ops; the sharding markers of XLA's SPMD partitioner
// are identities on one device (a reshape to the same type, which the simplifier
// removes); @Sharding keeps its mhlo.sharding, which makes it a sharding constraint
// (ir/sharding_attrs.h); shard_map's boundaries that change the shape stay custom calls.
// Other targets stay custom calls.
void Parser::importCustomCall(OpCode& code, const std::vector<Value*>& operands, const TypeList& resultTypes,
                              NamedAttrList& attrs, size_t offset) {
  const Attribute target = findAttr(attrs, "call_target_name");
  if (!target.is(Attribute::Kind::String)) return;
  const std::string name = target.asString();
  if (name == "Sharding" || name == "SPMDFullToShardShape" || name == "SPMDShardToFullShape") {
    if (operands.size() != 1 || resultTypes.size() != 1)
      unsupportedAt(offset, "custom_call @" + name + " of other than one operand and one result");
    if (name == "Sharding" && operands[0]->type() != resultTypes[0])
      unsupportedAt(offset, "custom_call @Sharding that changes the shape");
    ShardingMarker marker =
        shardingMarker(name, operands[0]->type(), resultTypes[0], kHloShardingAttr, findAttr(attrs, kHloShardingAttr));
    if (marker.code == ops::CustomCall) return;  // stays the call it is, every attribute kept
    code = marker.code;
    attrs = std::move(marker.attrs);
    return;
  }
  if (name.rfind("mhlo.", 0) != 0) return;
  // MHLO's names, where CHLO spells the op otherwise.
  std::string op = name.substr(5);
  if (op == "topk") op = "top_k";
  std::optional<OpCode> replacement = lookupOp("chlo." + op);
  if (!replacement) replacement = lookupOp("stablehlo." + op);
  if (!replacement) return;  // left as a custom call: running it says the target is unsupported
  NamedAttrList fields;
  if (const Attribute given = findAttr(attrs, "mhlo.attributes"); given.is(Attribute::Kind::Dictionary))
    fields = given.fields();
  const OpInfo& info = opInfo(*replacement);
  NamedAttrList converted;
  for (const NamedAttribute& a : fields) {
    // top_k's `largest = true` is what chlo.top_k does; largest = false it cannot.
    if (op == "top_k" && a.name == "largest") {
      if (!(a.value.is(Attribute::Kind::Bool) && a.value.asBool()))
        unsupportedAt(offset, "custom_call @mhlo.topk with largest = false");
      continue;
    }
    setAttr(converted, a.name, canonicalAttr(info, a.name, a.value, offset));
  }
  code = *replacement;
  attrs = std::move(converted);
}

Op* Parser::parseGenericOp(Region& region, const ResultNames& names, size_t nameOffset) {
  std::string opName;
  if (!unescape(tok_.text, opName)) error("bad op name string");
  std::optional<OpCode> code = lookupOpNamed(opName, nameOffset);
  if (!code) {
    bool known = opName.rfind("stablehlo.", 0) == 0 || opName.rfind("chlo.", 0) == 0;
    if (known) error("unknown op '" + opName + "'");
    unsupportedAt(nameOffset, "op '" + opName + "' (dialect not supported)");
  }
  const OpInfo& info = opInfo(*code);
  advance();
  expect(Tok::LParen, "to open the operand list");
  std::vector<Value*> operands = parseValueUseList();
  expect(Tok::RParen, "to close the operand list");
  if (tok_.is(Tok::LSquare)) unsupportedAt(tok_.offset, "ops with successor blocks");

  NamedAttrList attrs;
  auto addAttrs = [&](NamedAttrList list, size_t offset) {
    for (NamedAttribute& a : list) {
      Attribute value = canonicalAttr(info, a.name, a.value, offset);
      if (findAttr(attrs, a.name)) errorAt(offset, "attribute '" + a.name + "' is given twice");
      setAttr(attrs, a.name, std::move(value));
    }
  };
  if (tok_.is(Tok::Less)) {  // <{properties}>
    size_t offset = tok_.offset;
    advance();
    if (!tok_.is(Tok::LBrace)) error("expected '{' after '<' for op properties");
    addAttrs(parseAttrDict(), offset);
    expect(Tok::Greater, "to close the op properties");
  }

  // Regions: ({...}, {...})
  std::vector<std::unique_ptr<Region>> regions;
  if (consumeIf(Tok::LParen)) {
    do regions.push_back(parseRegion());
    while (consumeIf(Tok::Comma));
    expect(Tok::RParen, "to close the region list");
  }
  if (tok_.is(Tok::LBrace)) {
    size_t offset = tok_.offset;
    addAttrs(parseAttrDict(), offset);
  }
  expect(Tok::Colon, "before the op's type");
  if (!tok_.is(Tok::LParen)) error("expected a function type '(...) -> ...' in the generic op form");
  TypeList inputs, results;
  size_t typeOffset = tok_.offset;
  parseFunctionType(inputs, results);
  if (inputs.size() != operands.size())
    errorAt(typeOffset, "the type lists " + std::to_string(inputs.size()) + " operand(s) but " +
                            std::to_string(operands.size()) + " are given");
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] != operands[i]->type())
      errorAt(typeOffset, "operand " + std::to_string(i) + " has type " + operands[i]->type().str() +
                              " but the op's type says " + inputs[i].str());
  }
  return finishOp(region, *code, operands, results, std::move(attrs), std::move(regions), names,
                  nameOffset);
}

}  // namespace kiln::stablehlo
