// "builtin.module" and "func.func" in the generic op form: what mlir-opt
// --mlir-print-op-generic writes for a whole file. They read into the same Module and
// Functions as the pretty `module` and `func.func`: a function's signature comes from its
// function_type attribute, its parameters are its entry block's arguments, and
// sym_name, sym_visibility, arg_attrs and res_attrs become the Function's own fields.
#include "stablehlo/parser_impl.h"
#include "support/error.h"

namespace kiln::stablehlo {

namespace {

// The attributes of a generic module or function, from its <{properties}> (newer MLIR)
// or its trailing dictionary (older MLIR), with function_type kept apart: it is a
// function type, which kiln's attributes do not hold.
struct StructureAttrs {
  NamedAttrList attrs;
  bool hasFunctionType = false;
  TypeList inputs, results;
};

void parseStructureAttrs(Parser& p, StructureAttrs& out) {
  p.expect(Tok::LBrace, "to open an attribute dictionary");
  if (!p.tok().is(Tok::RBrace)) {
    do {
      size_t offset = p.tok().offset;
      std::string name;
      if (p.tok().is(Tok::BareId)) {
        name = std::string(p.tok().text);
      } else if (p.tok().is(Tok::String)) {
        if (!unescape(p.tok().text, name)) p.error("bad string escape");
      } else {
        p.error("expected an attribute name, found '" + std::string(p.tok().text) + "'");
      }
      p.advance();
      if (findAttr(out.attrs, name) || (name == "function_type" && out.hasFunctionType))
        p.errorAt(offset, "attribute '" + name + "' is given twice");
      if (name == "function_type") {
        p.expect(Tok::Equal, "after function_type");
        if (!p.tok().is(Tok::LParen))
          p.error("expected a function type '(...) -> ...' for function_type");
        p.parseFunctionType(out.inputs, out.results);
        out.hasFunctionType = true;
        continue;
      }
      Attribute value = p.consumeIf(Tok::Equal) ? p.parseAttribute() : Attribute::unit();
      setAttr(out.attrs, std::move(name), std::move(value));
    } while (p.consumeIf(Tok::Comma));
  }
  p.expect(Tok::RBrace, "to close an attribute dictionary");
}

// `() ` and an optional `<{properties}>` after the op name.
void parseNoOperands(Parser& p, StructureAttrs& attrs, std::string_view op) {
  p.expect(Tok::LParen, "after \"" + std::string(op) + "\"");
  p.expect(Tok::RParen, "(\"" + std::string(op) + "\" has no operands)");
  if (p.consumeIf(Tok::Less)) {
    parseStructureAttrs(p, attrs);
    p.expect(Tok::Greater, "to close the op properties");
  }
}

// An optional trailing attribute dictionary and the op type `: () -> ()`.
void parseStructureEnd(Parser& p, StructureAttrs& attrs, std::string_view op) {
  if (p.tok().is(Tok::LBrace)) parseStructureAttrs(p, attrs);
  p.expect(Tok::Colon, "before the type of \"" + std::string(op) + "\"");
  size_t offset = p.tok().offset;
  if (!p.tok().is(Tok::LParen))
    p.error("expected '() -> ()' as the type of \"" + std::string(op) + "\"");
  TypeList inputs, results;
  p.parseFunctionType(inputs, results);
  if (!inputs.empty() || !results.empty())
    p.errorAt(offset, "\"" + std::string(op) + "\" has the type () -> ()");
}

// A string attribute taken out of `attrs` (none: empty); an error when it is not a string.
std::string takeString(Parser& p, NamedAttrList& attrs, std::string_view name, size_t offset) {
  Attribute a = findAttr(attrs, name);
  if (!a) return {};
  if (!a.is(Attribute::Kind::String))
    p.errorAt(offset, "attribute '" + std::string(name) + "' must be a string");
  removeAttr(attrs, name);
  return a.asString();
}

// arg_attrs / res_attrs: an array of one dictionary per parameter or result.
std::vector<NamedAttrList> takeAttrLists(Parser& p, NamedAttrList& attrs, std::string_view name,
                                         size_t count, size_t offset) {
  std::vector<NamedAttrList> lists(count);
  Attribute a = findAttr(attrs, name);
  if (!a) return lists;
  removeAttr(attrs, name);
  if (!a.is(Attribute::Kind::Array) || a.asArray().size() != count)
    p.errorAt(offset, "attribute '" + std::string(name) + "' must be an array of " +
                          std::to_string(count) + " dictionaries (one per " +
                          (name == "arg_attrs" ? "parameter" : "result") + ")");
  for (size_t i = 0; i < count; ++i) {
    const Attribute& d = a.asArray()[i];
    if (!d.is(Attribute::Kind::Dictionary))
      p.errorAt(offset, "attribute '" + std::string(name) + "' must hold dictionaries");
    lists[i] = d.fields();
  }
  return lists;
}

}  // namespace

bool Parser::isGenericOpNamed(std::string_view name) const {
  return tok_.is(Tok::String) && tok_.text.size() == name.size() + 2 &&
         tok_.text.substr(1, name.size()) == name;
}

void Parser::parseGenericModule(Module& module) {
  size_t offset = tok_.offset;
  advance();
  StructureAttrs attrs;
  parseNoOperands(*this, attrs, "builtin.module");
  expect(Tok::LParen, "to open the module's region");
  expect(Tok::LBrace, "to open the module body");
  if (tok_.is(Tok::BlockId)) {  // an empty entry label: ^bb0:
    advance();
    expect(Tok::Colon, "after the module's block label");
  }
  parseModuleBody(module);
  expect(Tok::RBrace, "to close the module body");
  expect(Tok::RParen, "to close the module's region list");
  parseStructureEnd(*this, attrs, "builtin.module");
  parseOptionalLoc(module.loc);
  if (attrs.hasFunctionType) errorAt(offset, "\"builtin.module\" has no function_type");
  module.name = takeString(*this, attrs.attrs, "sym_name", offset);
  module.attrs = std::move(attrs.attrs);
}

void Parser::parseGenericFunction(Module& module) {
  size_t offset = tok_.offset;
  advance();
  StructureAttrs attrs;
  parseNoOperands(*this, attrs, "func.func");

  // The signature follows the body, so the body is skipped to read it first.
  size_t regionStart = tok_.offset;
  if (!tok_.is(Tok::LParen)) error("expected '(' to open the function's region");
  for (int depth = 0;;) {
    if (tok_.is(Tok::Eof) || tok_.is(Tok::Error))
      errorAt(regionStart, "the function's region is not closed");
    if (tok_.is(Tok::LParen) || tok_.is(Tok::LBrace) || tok_.is(Tok::LSquare)) ++depth;
    if (tok_.is(Tok::RParen) || tok_.is(Tok::RBrace) || tok_.is(Tok::RSquare)) --depth;
    advance();
    if (depth == 0) break;
  }
  parseStructureEnd(*this, attrs, "func.func");
  size_t locOffset = skipOptionalLoc();
  size_t resume = tok_.offset;

  std::string name = takeString(*this, attrs.attrs, "sym_name", offset);
  if (name.empty()) errorAt(offset, "\"func.func\" needs a sym_name");
  if (!attrs.hasFunctionType) errorAt(offset, "\"func.func\" @" + name + " needs a function_type");
  if (module.lookup(name)) errorAt(offset, "redefinition of function @" + name);
  std::string visibility = takeString(*this, attrs.attrs, "sym_visibility", offset);
  auto fn = std::make_unique<Function>(name, attrs.inputs, attrs.results);
  if (visibility == "private")
    fn->visibility = Visibility::Private;
  else if (visibility == "nested")
    fn->visibility = Visibility::Nested;
  else if (!visibility.empty() && visibility != "public")
    errorAt(offset, "unknown sym_visibility '" + visibility + "'");
  fn->argAttrs = takeAttrLists(*this, attrs.attrs, "arg_attrs", attrs.inputs.size(), offset);
  fn->resultAttrs = takeAttrLists(*this, attrs.attrs, "res_attrs", attrs.results.size(), offset);
  fn->attrs = std::move(attrs.attrs);
  fn->pos = posOf(offset);

  // The body; the entry block's arguments are the parameters.
  lexer_.resetTo(regionStart);
  advance();
  expect(Tok::LParen, "to open the function's region");
  size_t open = tok_.offset;
  expect(Tok::LBrace, "to open the function body");
  if (tok_.is(Tok::RBrace))
    unsupportedAt(offset, "function declarations without a body (@" + name + ")");
  std::vector<std::pair<std::string, Type>> args;
  std::vector<size_t> argLocs;
  if (tok_.is(Tok::BlockId)) {
    advance();
    if (tok_.is(Tok::LParen)) parseBlockArgs(args, &argLocs);
    expect(Tok::Colon, "after the entry block label");
  }
  if (args.size() != fn->numParams())
    errorAt(open, "the entry block of @" + name + " has " + std::to_string(args.size()) +
                      " argument(s) but its function_type has " + std::to_string(fn->numParams()));
  scopes_.clear();  // function bodies are isolated: no outer names are visible
  pushScope();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].second != fn->param(i)->type())
      errorAt(open, "entry block argument " + args[i].first + " of @" + name + " has type " +
                        args[i].second.str() + " but the function_type says " +
                        fn->param(i)->type().str());
    define(args[i].first, {fn->param(i)}, open);
    if (argLocs[i]) pendingLocs_.push_back({&fn->argLocs[i], argLocs[i]});
  }
  Function* raw = module.addFunction(std::move(fn));
  CfgBlocks blocks = parseFunctionOps(*raw, offset);
  expect(Tok::RParen, "to close the function's region list");
  if (blocks.size() > 1 || blocks[0].end != CfgBlock::End::None) pendingLifts_.emplace_back(raw, std::move(blocks));
  lexer_.resetTo(resume);
  advance();
  if (locOffset) pendingLocs_.push_back({&raw->loc, locOffset});
}

}  // namespace kiln::stablehlo
