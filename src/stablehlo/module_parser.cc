// The parser's module structure: `module` and its attributes, top-level items (functions,
// `#alias = ...` definitions, meshes, globals), function signatures and bodies.
#include "stablehlo/parser.h"

#include "ir/elided_constants.h"
#include "ir/ops/stablehlo.h"
#include "ir/sharding_attrs.h"
#include "ir/verifier.h"
#include "stablehlo/bytecode.h"
#include "stablehlo/parser_impl.h"
#include "support/error.h"

namespace kiln::stablehlo {

std::unique_ptr<Module> Parser::parseModule() {
  auto module = std::make_unique<Module>();
  module->source = source_;
  bool sawModuleOp = false;
  module_ = module.get();
  // What is read but not yet in the module goes before the module does, also on errors:
  // its ops hold uses of the module's values.
  struct Release {
    Parser& p;
    ~Release() {
      p.pendingLifts_.clear();
      p.discarded_.clear();
      p.pendingLocs_.clear();
    }
  } release{*this};
  while (!tok_.is(Tok::Eof)) parseTopLevelItem(*module, sawModuleOp);
  if (unclaimedElided_)
    unsupportedAt(firstUnclaimedElided_, "dense_resource<__elided__> outside a constant op");
  resolveLocations();
  for (auto& [fn, blocks] : pendingLifts_) liftControlFlow(*fn, blocks, source_);
  verifyShardings(*module);
  return module;
}

void Parser::parseTopLevelItem(Module& module, bool& sawModuleOp) {
  if (atResourceSection()) {
    if (!sawResources_) parseResourceSection(tok_.offset);
    lexer_.resetTo(resourcesEnd_);
    advance();
    return;
  }
  if (tok_.is(Tok::HashId) || tok_.is(Tok::BangId)) {
    parseAliasDefinition();
    return;
  }
  if (tok_.isKeyword("module") || tok_.isKeyword("builtin.module")) {
    if (sawModuleOp || !module.functions().empty())
      error("only one module is allowed per file part (separate parts with '// -----')");
    sawModuleOp = true;
    advance();
    if (tok_.is(Tok::SymbolId)) {
      std::string name(tok_.text.substr(1));
      if (!name.empty() && name[0] == '"' && !unescape(tok_.text.substr(1), name)) error("bad module name");
      module.name = name;
      advance();
    }
    if (consumeKeyword("attributes")) {
      if (!tok_.is(Tok::LBrace)) error("expected '{' after 'attributes'");
      module.attrs = parseAttrDict();
    }
    expect(Tok::LBrace, "to open the module body");
    parseModuleBody(module);
    expect(Tok::RBrace, "to close the module body");
    parseOptionalLoc(module.loc);
    return;
  }
  if (isGenericOpNamed("builtin.module")) {
    if (sawModuleOp || !module.functions().empty())
      error("only one module is allowed per file part (separate parts with '// -----')");
    sawModuleOp = true;
    parseGenericModule(module);
    return;
  }
  if (sawModuleOp) error("unexpected " + describe(tok_) + " after the module");
  if (isGenericOpNamed("func.func")) {
    parseGenericFunction(module);
    return;
  }
  if (tok_.isKeyword("func.func")) {
    parseFunction(module);
    return;
  }
  if (tok_.isKeyword("util.global")) {
    parseGlobal();
    return;
  }
  if (tok_.isKeyword("sdy.mesh")) {
    parseSdyMesh(module);
    return;
  }
  if (tok_.is(Tok::BareId) || tok_.is(Tok::String)) {
    unsupportedAt(tok_.offset, "top-level op " + describe(tok_) + " (only func.func is supported)");
  }
  error("expected 'module' or 'func.func', found " + describe(tok_));
}

void Parser::parseModuleBody(Module& module) {
  while (!tok_.is(Tok::RBrace) && !tok_.is(Tok::Eof)) {
    if (tok_.isKeyword("func.func")) {
      parseFunction(module);
    } else if (isGenericOpNamed("func.func")) {
      parseGenericFunction(module);
    } else if (tok_.isKeyword("util.global")) {
      parseGlobal();
    } else if (tok_.isKeyword("sdy.mesh")) {
      parseSdyMesh(module);
    } else if (tok_.is(Tok::BareId) || tok_.is(Tok::String)) {
      unsupportedAt(tok_.offset, "module-level op " + describe(tok_) + " (only func.func is supported)");
    } else {
      error("expected 'func.func' in the module body, found " + describe(tok_));
    }
  }
}

void Parser::parseAliasDefinition() {
  Token alias = tok_;
  advance();
  expect(Tok::Equal, "in an alias definition");
  std::string name(alias.text);
  if (alias.is(Tok::BangId)) {
    typeAliases_[name] = parseType();
    return;
  }
  if (tok_.isKeyword("loc")) {
    // Location aliases are resolved lazily: they may refer to aliases defined later.
    if (!locAliases_.emplace(name, tok_.offset).second) error("redefinition of " + name);
    advance();
    expect(Tok::LParen, "after 'loc'");
    for (int depth = 1; depth > 0;) {
      if (tok_.is(Tok::Eof)) error("unterminated loc(...)");
      if (tok_.is(Tok::LParen)) ++depth;
      if (tok_.is(Tok::RParen)) --depth;
      advance();
    }
    return;
  }
  attrAliases_[name] = parseAttribute();
}

void Parser::parseFunction(Module& module) {
  size_t offset = tok_.offset;
  advance();  // func.func
  Visibility visibility = Visibility::Public;
  if (consumeKeyword("public")) visibility = Visibility::Public;
  else if (consumeKeyword("private")) visibility = Visibility::Private;
  else if (consumeKeyword("nested")) visibility = Visibility::Nested;
  Token nameTok = expect(Tok::SymbolId, "for the function name");
  std::string name(nameTok.text.substr(1));
  if (!name.empty() && name[0] == '"' && !unescape(nameTok.text.substr(1), name))
    errorAt(nameTok.offset, "bad symbol name");
  if (module.lookup(name)) errorAt(nameTok.offset, "redefinition of function @" + name);

  // Parameters: %name: type {attrs} loc(...)
  struct Param {
    std::string name;
    Type type;
    NamedAttrList attrs;
    size_t offset, locOffset = 0;
  };
  std::vector<Param> params;
  expect(Tok::LParen, "to open the parameter list");
  if (!tok_.is(Tok::RParen)) {
    do {
      Param p;
      p.offset = tok_.offset;
      if (!tok_.is(Tok::ValueId)) {
        if (atType()) unsupportedAt(tok_.offset, "function declarations without a body");
        error("expected a parameter (%name: type), found " + describe(tok_));
      }
      p.name = std::string(tok_.text);
      if (p.name.find('#') != std::string::npos) error("a parameter name cannot have a #N suffix");
      advance();
      expect(Tok::Colon, "after the parameter name");
      p.type = parseType();
      if (tok_.is(Tok::LBrace)) p.attrs = parseAttrDict();
      p.locOffset = skipOptionalLoc();
      params.push_back(std::move(p));
    } while (consumeIf(Tok::Comma));
  }
  expect(Tok::RParen, "to close the parameter list");

  // Results: -> T | -> (T {attrs}, T)
  TypeList results;
  std::vector<NamedAttrList> resultAttrs;
  if (consumeIf(Tok::Arrow)) {
    if (consumeIf(Tok::LParen)) {
      if (!tok_.is(Tok::RParen)) {
        do {
          results.push_back(parseType());
          resultAttrs.push_back(tok_.is(Tok::LBrace) ? parseAttrDict() : NamedAttrList{});
        } while (consumeIf(Tok::Comma));
      }
      expect(Tok::RParen, "to close the result list");
    } else {
      results.push_back(parseType());  // a bare result has no attributes: `{` opens the body
      resultAttrs.emplace_back();
    }
  }

  TypeList paramTypes;
  for (const Param& p : params) paramTypes.push_back(p.type);
  auto fn = std::make_unique<Function>(name, paramTypes, results);
  fn->visibility = visibility;
  fn->pos = posOf(offset);
  for (size_t i = 0; i < params.size(); ++i) {
    fn->argAttrs[i] = std::move(params[i].attrs);
    if (params[i].locOffset) pendingLocs_.push_back({&fn->argLocs[i], params[i].locOffset});
  }
  for (size_t i = 0; i < resultAttrs.size(); ++i) fn->resultAttrs[i] = std::move(resultAttrs[i]);
  if (consumeKeyword("attributes")) {
    if (!tok_.is(Tok::LBrace)) error("expected '{' after 'attributes'");
    fn->attrs = parseAttrDict();
  }
  if (!tok_.is(Tok::LBrace)) unsupportedAt(tok_.offset, "function declarations without a body (@" + name + ")");

  // The body: parameters are the entry block's arguments.
  scopes_.clear();  // function bodies are isolated: no outer names are visible
  pushScope();
  for (size_t i = 0; i < params.size(); ++i) define(params[i].name, {fn->param(i)}, params[i].offset);
  Function* raw = module.addFunction(std::move(fn));
  advance();  // {
  if (tok_.is(Tok::BlockId)) {
    // An explicit entry label repeats the parameters: ^bb0(%arg0: T, ...):
    error("an entry block label is not allowed in a function body");
  }
  CfgBlocks blocks = parseFunctionOps(*raw, offset);
  if (blocks.size() > 1 || blocks[0].end != CfgBlock::End::None) pendingLifts_.emplace_back(raw, std::move(blocks));
  parseOptionalLoc(raw->loc);
}

CfgBlocks Parser::parseFunctionOps(Function& fn, size_t offset) {
  // Ops go into the body; a cf.br / cf.cond_br or a block label makes the function a
  // control-flow graph, whose later blocks are read into their own regions.
  CfgBlocks blocks(1);
  blocks[0].offset = offset;
  while (!tok_.is(Tok::RBrace)) {
    if (tok_.is(Tok::Eof)) error("expected '}' to close the body of @" + fn.name());
    CfgBlock& current = blocks.back();
    if (tok_.is(Tok::BlockId)) {
      if (current.end == CfgBlock::End::None && !(current.region && current.region->terminator()) &&
          !(blocks.size() == 1 && fn.body().terminator()))
        error("the block before " + std::string(tok_.text) + " does not end with a branch or return");
      CfgBlock block;
      block.name = std::string(tok_.text);
      block.offset = tok_.offset;
      block.region = std::make_unique<Region>();
      advance();
      std::vector<std::pair<std::string, Type>> args;
      if (tok_.is(Tok::LParen)) parseBlockArgs(args);
      expect(Tok::Colon, "after the block label");
      for (const auto& [argName, type] : args) define(argName, {block.region->addArgument(type)}, block.offset);
      blocks.push_back(std::move(block));
      continue;
    }
    if (current.end != CfgBlock::End::None) error("ops after a branch must start a new block (^label:)");
    if (tok_.isKeyword("cf.br") || tok_.isKeyword("cf.cond_br")) {
      parseBranch(current);
      continue;
    }
    parseOperation(blocks.size() == 1 ? fn.body() : *current.region);
  }
  advance();  // }
  popScope();
  return blocks;
}

}  // namespace kiln::stablehlo
