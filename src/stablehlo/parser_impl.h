// The parser's internals, shared by the files that implement it:
//   parser.cc         modules, functions, regions, ops in generic form, values
//   attr_parser.cc    numbers, types, attributes
//   dense_parser.cc   dense<...> literals
//   location_parser.cc  loc(...) locations
//   global_parser.cc  IREE's immutable util.global constants
//   cfg_import.cc     functions with several blocks (cf.br / cf.cond_br), lifted
//                     into stablehlo.while + stablehlo.case
//   pretty_parser.cc  ops in their pretty forms (the op_syntax formats and custom ops)
//   generic_structure.cc  "builtin.module" and "func.func" in the generic op form
//   resource_blobs.cc  dense_resource<...> and the file's {-# dialect_resources #-} blobs
//   mhlo_import.cc    MHLO ops, attributes and types read as StableHLO
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/module.h"
#include "stablehlo/lexer.h"
#include "stablehlo/op_syntax.h"

namespace kiln::stablehlo {

// A block of a function written as a control-flow graph (MLIR's cf dialect), while it
// is being read. Block 0 is the entry block, whose ops go straight into the function.
struct CfgBlock {
  std::string name;  // ^bb1 (empty for the entry block)
  size_t offset = 0;
  std::unique_ptr<Region> region;  // arguments and ops (not for the entry block)
  // How the block ends: a branch (one target), a conditional branch (two), or a return
  // (the func.return op stays the region's last op until lifting).
  enum class End { None, Branch, CondBranch, Return } end = End::None;
  Value* condition = nullptr;
  std::string targets[2];
  std::vector<Value*> targetArgs[2];
  size_t endOffset = 0;
};

// The blocks of a function being read. Their ops read values of other blocks (those
// before them, and after an error anything the text named), so every use is dropped
// before any block goes: destroyed in order, a block would free values a later block's
// ops still point at.
struct CfgBlocks : std::vector<CfgBlock> {
  using std::vector<CfgBlock>::vector;
  CfgBlocks(CfgBlocks&&) = default;
  CfgBlocks& operator=(CfgBlocks&&) = default;
  ~CfgBlocks();
};

// Rewrites a function read as blocks into one region: a stablehlo.while over a state of
// (block number, live values...) whose body is a stablehlo.case with a branch per block.
void liftControlFlow(Function& fn, CfgBlocks& blocks, const SourceRef& source);

// A token as an error message quotes it: 'text' (cut at 40 characters), or "end of input".
std::string describe(const Token& t);

class Parser {
 public:
  // Parses bytes [begin, end) of `source` (one `// -----` part) into a module.
  Parser(SourceRef source, size_t begin, size_t end);
  std::unique_ptr<Module> parseModule();

  // ---- tokens ----
  const Token& tok() const { return tok_; }
  void advance() { tok_ = lexer_.next(); }
  // The token after the current one, without consuming anything.
  Token peek();
  bool consumeIf(Tok kind);
  bool consumeKeyword(std::string_view word);
  Token expect(Tok kind, std::string_view context);
  void expectKeyword(std::string_view word, std::string_view context);

  // ---- errors ----
  // An error at the current token; when that token is a lexer error, its own message
  // ("string literal is not terminated") says more than what the parser expected.
  [[noreturn]] void error(const std::string& message) const {
    errorAt(tok_.offset, tok_.is(Tok::Error) ? std::string(tok_.text) : message);
  }
  [[noreturn]] void errorAt(size_t offset, const std::string& message) const;
  [[noreturn]] void unsupportedAt(size_t offset, const std::string& what) const;
  SourcePos posOf(size_t offset) const { return source_->posOf(offset); }

  // ---- values ----
  // A use of a value: %x or %x#N.
  Value* parseValueUse();
  // Operands separated by commas; a comma is only taken when a value follows it.
  std::vector<Value*> parseValueUseList();
  bool atValueUse() const { return tok_.is(Tok::ValueId); }

  // ---- types (attr_parser.cc) ----
  Type parseType();
  TypeList parseTypeList();  // T, T, ... (at least one)
  // `(A, B) -> R` or `(A) -> (R1, R2)`; the current token must be '('.
  void parseFunctionType(TypeList& inputs, TypeList& results);
  // A single type or a parenthesized list (function results).
  TypeList parseResultTypes();
  std::optional<DType> parseElementType();
  bool atType() const;

  // ---- attributes (attr_parser.cc) ----
  Attribute parseAttribute();
  NamedAttrList parseAttrDict();  // { a = 1, b }; current token must be '{'
  Attribute parseDenseAttr();     // after the 'dense' keyword: <...> : type
  Attribute parseDenseBody(const Type& type, size_t bodyStart, size_t bodyEnd);
  // After the 'dense_resource' keyword: <name> : type, with the data of blob `name` from
  // the file's resource section. <__elided__> (data the exporter left out) gives zeros
  // that the op being parsed must claim: a constant, which parseOperation marks elided.
  Attribute parseDenseResource(size_t keywordOffset);
  // An integer (optionally negative); returns false when the token is not one.
  bool parseInteger(int64_t& value);
  int64_t parseI64(std::string_view context);
  std::vector<int64_t> parseI64List(std::string_view context);  // [1, 2, 3]
  double parseFloatValue(DType type, std::string_view context);
  // Dialect attributes after '#'.
  Attribute parseHashAttribute();
  // The source text of the balanced <...> at the current token, consumed.
  std::string_view angleText(const std::string& what);
  Attribute parseRecordBody(const RecordSchema& schema, size_t start);
  Attribute parseConvDimensions();  // [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
  // Brings a named attribute of an op to its canonical form (by the op's schema).
  Attribute canonicalAttr(const OpInfo& info, const std::string& name, const Attribute& value,
                          size_t offset) const;

  // ---- locations (attr_parser.cc) ----
  // Skips an optional `loc(...)` and returns the offset of its `loc` keyword (0 when
  // there is none). Locations are parsed at the end of the part, because `#locN`
  // aliases may be defined after their use.
  size_t skipOptionalLoc();
  // Skips an optional `loc(...)` and arranges for it to be parsed into `slot`.
  void parseOptionalLoc(Location& slot);
  Location parseLocationAt(size_t offset, int depth);

  // ---- ops and regions (parser.cc, pretty_parser.cc) ----
  struct ResultNames {
    std::vector<std::pair<std::string, unsigned>> groups;  // name, number of results
    size_t total = 0;
    size_t offset = 0;
  };
  void parseOperation(Region& region);
  // An op by its name: the registry's, or an MHLO name read as its StableHLO op
  // (mhlo_import.cc; an `unsupported: mhlo.X` error at `offset` for MHLO-only ops).
  // Nothing for an unknown name of another dialect.
  std::optional<OpCode> lookupOpNamed(std::string_view name, size_t offset) const;
  // What an MHLO op (`name`) carries that its StableHLO op does not (mhlo_import.cc).
  void importMhloAttrs(std::string_view name, Op& op, size_t offset) const;
  // `#mhlo...` attribute names as the `#stablehlo...` ones they stand for; others as given.
  static std::string stablehloAttrName(const std::string& hashName);
  Op* parseGenericOp(Region& region, const ResultNames& names, size_t nameOffset);
  Op* parsePrettyOp(Region& region, OpCode code, const ResultNames& names, size_t nameOffset);
  // Region body in braces. `args` are entry-block arguments declared outside the braces
  // (while, pretty reduce); without them an entry label `^bb0(...)` may declare them.
  std::unique_ptr<Region> parseRegion(const std::vector<std::pair<std::string, Type>>& args = {});
  // `locOffsets`, when given, gets the offset of each argument's loc(...) (0 for none).
  void parseBlockArgs(std::vector<std::pair<std::string, Type>>& args,
                      std::vector<size_t>* locOffsets = nullptr);
  // Creates an op in `region`, binds the result names and records its positions.
  // A custom_call that stands for an op becomes that op (parser.cc).
  void importCustomCall(OpCode& code, const std::vector<Value*>& operands, const TypeList& resultTypes,
                        NamedAttrList& attrs, size_t offset);
  Op* finishOp(Region& region, OpCode code, const std::vector<Value*>& operands,
               const TypeList& resultTypes, NamedAttrList attrs,
               std::vector<std::unique_ptr<Region>> regions, const ResultNames& names,
               size_t nameOffset);
  size_t opCount() const { return opCount_; }

  // ---- pretty forms (pretty_parser.cc) ----
  // What a pretty form has read so far.
  struct PrettyOp {
    OpCode code;
    std::vector<Value*> operands;
    NamedAttrList attrs;
    TypeList resultTypes;
    std::vector<std::unique_ptr<Region>> regions;
    size_t declaredResults;  // from the `%x:N =` prefix
  };
  void parseItems(PrettyOp& op, const std::vector<SyntaxItem>& items);
  void parseTypeClause(PrettyOp& op, TypeForm form);
  // The short form of attribute `name` (as a format writes it).
  Attribute parseAttrShort(const AttrSpec& spec);
  // An optional attribute dictionary, merged into `attrs` (canonicalized by `code`).
  void parseOptionalAttrDict(OpCode code, NamedAttrList& attrs);
  void addAttr(OpCode code, NamedAttrList& attrs, const std::string& name, Attribute value, size_t offset);
  // Checks that the types a form states for the operands are their actual types.
  void checkOperandTypes(const std::vector<Value*>& operands, const TypeList& stated, size_t offset);
  void parseIreeCheckOp(PrettyOp& op);
  size_t fixedResultCount(const PrettyOp& op) const;

  // Bounds the nesting of attributes, types, regions and locations, so that hostile
  // input cannot exhaust the stack.
  class NestingGuard {
   public:
    explicit NestingGuard(Parser& p);
    ~NestingGuard() { --parser_.depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Parser& parser_;
  };
  static constexpr int kMaxNesting = 200;

  // Scopes of value names: one per region, looked up innermost first.
  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }
  void define(const std::string& name, std::vector<Value*> values, size_t offset);

 private:
  void parseTopLevelItem(Module& module, bool& sawModuleOp);
  void parseModuleBody(Module& module);
  void parseFunction(Module& module);
  // The ops of a function body up to and past its closing '}' (the '{' and the entry
  // block's names are the caller's), in blocks when it is a control-flow graph.
  CfgBlocks parseFunctionOps(Function& fn, size_t offset);
  // The generic op form of the module and its functions, as mlir-opt
  // --mlir-print-op-generic writes a whole file (generic_structure.cc).
  bool isGenericOpNamed(std::string_view name) const;
  void parseGenericModule(Module& module);
  void parseGenericFunction(Module& module);
  void parseAliasDefinition();
  // IREE's `util.global` (module level) and its loads (global_parser.cc). Immutable
  // globals are constants: each load becomes a stablehlo.constant of the value.
  void parseGlobal();
  Op* parseGlobalUse(Region& region, const ResultNames& names, size_t nameOffset);
  void skipPointerType();  // !util.ptr<...>
  // Shardy's ops (sdy_import.cc): `sdy.mesh` at module level; sharding constraints
  // (sdy.sharding_constraint, sdy.reshard) in function bodies.
  void parseSdyMesh(Module& module);
  Op* parseSdyOp(Region& region, const ResultNames& names, size_t nameOffset);
  // sdy.manual_computation (Shardy's shard_map), imported as JAX's other export of a
  // shard_map: its body between @SPMDFullToShardShape and @SPMDShardToFullShape.
  Op* parseManualComputation(Region& region, const ResultNames& names, size_t nameOffset);
  // cf.br / cf.cond_br ending `block`, and tensor.extract of a tensor<i1> (cfg_import.cc).
  void parseBranch(CfgBlock& block);
  void parseTensorExtract(const ResultNames& names, size_t nameOffset);
  void resolveLocations();
  // The resource section `{-# dialect_resources: { builtin: { name: "0x..." } } #-}`
  // (resource_blobs.cc): found on the first dense_resource use (it ends the file), read
  // once, and skipped when the top level reaches it.
  struct ResourceBlob {
    std::string_view hex;  // the string's text without its quotes
    size_t offset;         // of the string, for errors
  };
  bool atResourceSection() const;  // at the '{' of `{-#`
  void parseResourceSection(size_t braceOffset);
  const std::unordered_map<std::string, ResourceBlob>& resourceBlobs();

  SourceRef source_;
  size_t end_;
  Lexer lexer_;
  Token tok_;
  std::vector<std::unordered_map<std::string, std::vector<Value*>>> scopes_;
  std::unordered_map<std::string, Attribute> attrAliases_;
  std::unordered_map<std::string, Type> typeAliases_;
  std::unordered_map<std::string, size_t> locAliases_;  // #loc3 -> offset of its `loc`
  std::unordered_map<std::string, Location> resolvedLocAliases_;
  std::vector<std::pair<Location*, size_t>> pendingLocs_;  // slot, offset of `loc`
  // Functions read as control-flow graphs, lifted once their locations are resolved
  // (lifting clones the blocks' ops, and pendingLocs_ points into them).
  std::vector<std::pair<Function*, CfgBlocks>> pendingLifts_;
  // Regions read and then dropped (a manual computation's body once its ops moved out),
  // kept while pendingLocs_ may point into their ops; their ops use no values.
  std::vector<std::unique_ptr<Region>> discarded_;
  size_t opCount_ = 0;
  int depth_ = 0;
  std::unordered_map<std::string, Literal> globals_;         // @symbol -> value
  std::unordered_map<std::string, std::string> pointers_;    // %ptr -> @symbol
  const Module* module_ = nullptr;  // the module being parsed (its meshes)
  size_t begin_;
  bool sawResources_ = false;
  std::unordered_map<std::string, ResourceBlob> blobs_;
  size_t resourcesEnd_ = 0;  // just after the section's `#-}`
  // dense_resource<__elided__> values read but not yet claimed by their constant op.
  size_t unclaimedElided_ = 0;
  size_t firstUnclaimedElided_ = 0;
};

// Number tokens (attr_parser.cc): an unsigned decimal or 0x integer (false on overflow),
// and whether a token is a 0x literal.
bool tokenToU64(std::string_view text, uint64_t& value);
bool isHexLiteral(std::string_view text);

// Hex digits to bytes, two digits per byte (dense_parser.cc); false on a non-hex character.
bool decodeHex(std::string_view digits, uint8_t* out);
// A literal of `type` from raw little-endian storage of numElements * storageBytes bytes
// (narrow integers and booleans one byte per element, as MLIR writes them).
Literal literalFromBytes(const Type& type, const uint8_t* data);

// Custom directives and hand-written op forms (custom_syntax.cc).
void parseDirective(Parser& p, Parser::PrettyOp& op, const std::string& directive);
void parseCustomOp(Parser& p, Parser::PrettyOp& op, const std::string& form);

}  // namespace kiln::stablehlo
