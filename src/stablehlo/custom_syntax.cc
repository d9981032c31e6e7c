// The pieces of StableHLO text that a format string cannot describe, each with its
// parser and printer side by side: custom directives (slice ranges, convolution windows,
// dot dimension numbers, reduce_precision formats, custom_call targets) and the
// hand-written op forms (constant, reduce, while, chlo.scan).
#include "ir/attr_records.h"
#include "ir/attr_schema.h"
#include "ir/elided_constants.h"
#include "ir/ops/stablehlo.h"
#include "stablehlo/parser_impl.h"
#include "stablehlo/printer_impl.h"
#include "support/error.h"

namespace kiln::stablehlo {

namespace {

std::vector<int64_t> intsOr(const Op& op, const char* name) {
  Attribute a = op.attr(name);
  return a && a.is(Attribute::Kind::DenseArray) ? a.asInts() : std::vector<int64_t>{};
}

void printIntList(Printer& p, const std::vector<int64_t>& values) {
  p << "[";
  for (size_t i = 0; i < values.size(); ++i) p << (i ? ", " : "") << std::to_string(values[i]);
  p << "]";
}

}  // namespace

// ---- directives -------------------------------------------------------------------------

// slice:  [start:limit(:stride), ...]
static void parseSliceRanges(Parser& p, Parser::PrettyOp& op) {
  std::vector<int64_t> start, limit, strides;
  size_t offset = p.tok().offset;
  p.expect(Tok::LSquare, "to open the slice ranges");
  if (!p.tok().is(Tok::RSquare)) {
    do {
      start.push_back(p.parseI64("for a slice start"));
      p.expect(Tok::Colon, "in a slice range start:limit");
      limit.push_back(p.parseI64("for a slice limit"));
      strides.push_back(p.consumeIf(Tok::Colon) ? p.parseI64("for a slice stride") : 1);
    } while (p.consumeIf(Tok::Comma));
  }
  p.expect(Tok::RSquare, "to close the slice ranges");
  p.addAttr(op.code, op.attrs, "start_indices", Attribute::i64Array(start), offset);
  p.addAttr(op.code, op.attrs, "limit_indices", Attribute::i64Array(limit), offset);
  p.addAttr(op.code, op.attrs, "strides", Attribute::i64Array(strides), offset);
}

static void printSliceRanges(Printer& p, const Op& op) {
  std::vector<int64_t> start = intsOr(op, "start_indices"), limit = intsOr(op, "limit_indices"),
                       strides = intsOr(op, "strides");
  p << "[";
  for (size_t i = 0; i < start.size(); ++i) {
    if (i) p << ", ";
    p << std::to_string(start[i]) << ":" << (i < limit.size() ? std::to_string(limit[i]) : "?");
    if (i < strides.size() && strides[i] != 1) p << ":" << std::to_string(strides[i]);
  }
  p << "]";
}

// window:  {stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..], reverse = [..]}
namespace {
struct WindowKey {
  const char* key;
  const char* attr;
};
constexpr WindowKey kWindowKeys[] = {{"stride", "window_strides"},
                                     {"pad", "padding"},
                                     {"lhs_dilate", "lhs_dilation"},
                                     {"rhs_dilate", "rhs_dilation"},
                                     {"reverse", "window_reversal"}};
}  // namespace

static void parseWindow(Parser& p, Parser::PrettyOp& op) {
  p.expect(Tok::LBrace, "to open the convolution window");
  if (!p.tok().is(Tok::RBrace)) {
    do {
      Token key = p.expect(Tok::BareId, "for a window attribute");
      const WindowKey* found = nullptr;
      for (const WindowKey& k : kWindowKeys)
        if (key.text == k.key) found = &k;
      if (!found) p.errorAt(key.offset, "unknown window attribute '" + std::string(key.text) + "'");
      p.expect(Tok::Equal, "after the window attribute name");
      Attribute value;
      if (std::string_view(found->key) == "pad") {
        std::vector<int64_t> flat;
        p.expect(Tok::LSquare, "to open the padding");
        if (!p.tok().is(Tok::RSquare)) {
          do {
            std::vector<int64_t> pair = p.parseI64List("for a padding pair [low, high]");
            if (pair.size() != 2) p.errorAt(key.offset, "padding entries are [low, high] pairs");
            flat.insert(flat.end(), pair.begin(), pair.end());
          } while (p.consumeIf(Tok::Comma));
        }
        p.expect(Tok::RSquare, "to close the padding");
        Literal lit(Type::tensor(DType::I64, {static_cast<int64_t>(flat.size() / 2), 2}));
        for (size_t i = 0; i < flat.size(); ++i) lit.setInt(static_cast<int64_t>(i), flat[i]);
        value = Attribute::dense(std::move(lit));
      } else {
        value = p.parseAttrShort(*opInfo(op.code).findAttr(found->attr));
      }
      p.addAttr(op.code, op.attrs, found->attr, value, key.offset);
    } while (p.consumeIf(Tok::Comma));
  }
  p.expect(Tok::RBrace, "to close the convolution window");
}

static void printWindow(Printer& p, const Op& op) {
  p << "{";
  bool first = true;
  for (const WindowKey& k : kWindowKeys) {
    Attribute a = op.attr(k.attr);
    if (!a) continue;
    p << (first ? "" : ", ") << k.key << " = ";
    first = false;
    if (std::string_view(k.key) == "pad" && a.is(Attribute::Kind::Dense)) {
      const Literal& lit = a.asDense();
      p << "[";
      for (int64_t i = 0; i + 1 < lit.numElements(); i += 2)
        p << (i ? ", " : "") << "[" << std::to_string(lit.intAt(i)) << ", " << std::to_string(lit.intAt(i + 1)) << "]";
      p << "]";
    } else {
      p.printAttrShort(*op.info().findAttr(k.attr), a);
    }
  }
  p << "}";
}

// dot-dims:  batching_dims = [0] x [0], contracting_dims = [2] x [1]
static void parseDotDims(Parser& p, Parser::PrettyOp& op) {
  size_t offset = p.tok().offset;
  DotDims d;
  if (p.consumeKeyword("batching_dims")) {
    p.expect(Tok::Equal, "after batching_dims");
    d.lhsBatch = p.parseI64List("for the lhs batching dimensions");
    p.expectKeyword("x", "between lhs and rhs batching dimensions");
    d.rhsBatch = p.parseI64List("for the rhs batching dimensions");
    p.expect(Tok::Comma, "after the batching dimensions");
  }
  p.expectKeyword("contracting_dims", "in dot_general");
  p.expect(Tok::Equal, "after contracting_dims");
  d.lhsContracting = p.parseI64List("for the lhs contracting dimensions");
  p.expectKeyword("x", "between lhs and rhs contracting dimensions");
  d.rhsContracting = p.parseI64List("for the rhs contracting dimensions");
  p.addAttr(op.code, op.attrs, "dot_dimension_numbers", d.toAttr(), offset);
}

static void printDotDims(Printer& p, const Op& op) {
  Attribute dims = op.attr("dot_dimension_numbers");
  if (!dims) {
    p << "<<missing dot_dimension_numbers>>";
    return;
  }
  DotDims d = DotDims::fromAttr(dims);
  if (!d.lhsBatch.empty() || !d.rhsBatch.empty()) {
    p << "batching_dims = ";
    printIntList(p, d.lhsBatch);
    p << " x ";
    printIntList(p, d.rhsBatch);
    p << ", ";
  }
  p << "contracting_dims = ";
  printIntList(p, d.lhsContracting);
  p << " x ";
  printIntList(p, d.rhsContracting);
}

// exponent-mantissa:  e5m10
static void parseExponentMantissa(Parser& p, Parser::PrettyOp& op) {
  Token t = p.expect(Tok::BareId, "for the format eXmY");
  std::string_view s = t.text;
  size_t m = s.find('m');
  auto digits = [](std::string_view d) {
    return !d.empty() && d.size() <= 9 && d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (s.size() < 4 || s[0] != 'e' || m == std::string_view::npos || !digits(s.substr(1, m - 1)) ||
      !digits(s.substr(m + 1)))
    p.errorAt(t.offset, "expected a format like e5m10, found '" + std::string(s) + "'");
  p.addAttr(op.code, op.attrs, "exponent_bits",
            Attribute::integer(std::stoll(std::string(s.substr(1, m - 1))), DType::I32), t.offset);
  p.addAttr(op.code, op.attrs, "mantissa_bits",
            Attribute::integer(std::stoll(std::string(s.substr(m + 1))), DType::I32), t.offset);
}

static void printExponentMantissa(Printer& p, const Op& op) {
  Attribute e = op.attr("exponent_bits"), m = op.attr("mantissa_bits");
  p << "e" << (e ? std::to_string(e.asInt()) : "?") << "m" << (m ? std::to_string(m.asInt()) : "?");
}

// target:  @name (custom_call's call_target_name)
static void parseTarget(Parser& p, Parser::PrettyOp& op) {
  Token t = p.expect(Tok::SymbolId, "for the custom_call target");
  std::string name(t.text.substr(1));
  if (!name.empty() && name[0] == '"' && !unescape(t.text.substr(1), name)) p.errorAt(t.offset, "bad target name");
  p.addAttr(op.code, op.attrs, "call_target_name", Attribute::string(name), t.offset);
}

static void printTarget(Printer& p, const Op& op) {
  Attribute target = op.attr("call_target_name");
  std::string text = printAttribute(Attribute::symbol(target ? target.asString() : "?"));
  p << text;
}

void parseDirective(Parser& p, Parser::PrettyOp& op, const std::string& directive) {
  if (directive == "slice") parseSliceRanges(p, op);
  else if (directive == "window") parseWindow(p, op);
  else if (directive == "dot-dims") parseDotDims(p, op);
  else if (directive == "exponent-mantissa") parseExponentMantissa(p, op);
  else if (directive == "target") parseTarget(p, op);
  else throw Error(ErrorKind::Internal, "no parser for directive " + directive);
}

void printDirective(Printer& p, const Op& op, const std::string& directive) {
  if (directive == "slice") printSliceRanges(p, op);
  else if (directive == "window") printWindow(p, op);
  else if (directive == "dot-dims") printDotDims(p, op);
  else if (directive == "exponent-mantissa") printExponentMantissa(p, op);
  else if (directive == "target") printTarget(p, op);
  else throw Error(ErrorKind::Internal, "no printer for directive " + directive);
}

// ---- constant:  %c = stablehlo.constant {attrs} dense<...> : T ----------------------------

static void parseConstant(Parser& p, Parser::PrettyOp& op) {
  p.parseOptionalAttrDict(op.code, op.attrs);
  size_t offset = p.tok().offset;
  Attribute value = p.parseAttribute();
  if (!value.is(Attribute::Kind::Dense)) p.errorAt(offset, "expected a dense<...> : type constant value");
  op.resultTypes = {value.asDense().type()};
  p.addAttr(op.code, op.attrs, "value", value, offset);
}

static void printConstant(Printer& p, const Op& op) {
  p.printResults(op);
  p.printOpName(op);
  p.printRemainingAttrs(op, {"value", std::string(kElidedAttr)});
  p.space();
  Attribute value = op.attr("value");
  if (isElidedConstant(op))
    p << elidedValueText(op);
  else if (value)
    p.printAttr(value);
  else p << "<<missing value>>";
}

// ---- reduce ------------------------------------------------------------------------------
//   stablehlo.reduce(%x init: %i), ... applies stablehlo.add across dimensions = [1] : T
//   stablehlo.reduce(%x init: %i), ... across dimensions = [1] : T
//     reducer(%a: E, %b: E) (%c: F, %d: F) { ... }

static void parseReduce(Parser& p, Parser::PrettyOp& op) {
  std::vector<Value*> inputs, inits;
  do {
    p.expect(Tok::LParen, "to open an (input init: value) pair");
    inputs.push_back(p.parseValueUse());
    p.expectKeyword("init", "in an (input init: value) pair");
    p.expect(Tok::Colon, "after 'init'");
    inits.push_back(p.parseValueUse());
    p.expect(Tok::RParen, "to close an (input init: value) pair");
  } while (p.consumeIf(Tok::Comma));
  op.operands = inputs;
  op.operands.insert(op.operands.end(), inits.begin(), inits.end());

  std::optional<OpCode> applied;
  size_t appliedOffset = 0;
  if (p.consumeKeyword("applies")) {
    appliedOffset = p.tok().offset;
    std::string name(p.tok().text);
    if (p.tok().is(Tok::String) && !unescape(p.tok().text, name)) p.error("bad op name");
    if (!p.tok().is(Tok::BareId) && !p.tok().is(Tok::String)) p.error("expected an op name after 'applies'");
    applied = p.lookupOpNamed(name, appliedOffset);
    if (!applied || opInfo(*applied).category != OpCategory::ElementwiseBinary)
      p.errorAt(appliedOffset, "'applies' needs a binary elementwise op, found '" + name + "'");
    p.advance();
  }
  size_t dimsOffset = p.tok().offset;
  p.expectKeyword("across", "in stablehlo.reduce");
  p.expectKeyword("dimensions", "in stablehlo.reduce");
  p.expect(Tok::Equal, "after 'dimensions'");
  p.addAttr(op.code, op.attrs, "dimensions", Attribute::i64Array(p.parseI64List("for the dimensions")), dimsOffset);
  p.parseOptionalAttrDict(op.code, op.attrs);
  size_t typeOffset = p.tok().offset;
  p.expect(Tok::Colon, "before the type of stablehlo.reduce");
  TypeList operandTypes;
  p.parseFunctionType(operandTypes, op.resultTypes);
  p.checkOperandTypes(op.operands, operandTypes, typeOffset);

  if (applied) {
    // The body is the one binary op on scalars of the input's element type.
    if (inputs.size() != 1) p.errorAt(appliedOffset, "'applies' is only for a reduce of one input");
    if (!inputs[0]->type().isTensor()) p.errorAt(typeOffset, "reduce input must be a tensor");
    Type scalar = Type::scalar(inputs[0]->type().dtype());
    auto body = std::make_unique<Region>();
    Value* a = body->addArgument(scalar);
    Value* b = body->addArgument(scalar);
    std::unique_ptr<Op> inner = Op::create(*applied, {a, b}, {scalar});
    inner->pos = p.posOf(appliedOffset);
    Value* r = body->push_back(std::move(inner))->result();
    std::unique_ptr<Op> ret = Op::create(ops::Return, {r}, {});
    ret->pos = p.posOf(appliedOffset);
    body->push_back(std::move(ret));
    op.regions.push_back(std::move(body));
    return;
  }
  // reducer(%a: T, %b: T) (%c: T, %d: T) {...}: pair i is (argument i, argument i + N).
  p.expectKeyword("reducer", "before the body of stablehlo.reduce");
  std::vector<std::pair<std::string, Type>> firsts, seconds;
  while (p.tok().is(Tok::LParen)) {
    std::vector<std::pair<std::string, Type>> pair;
    p.parseBlockArgs(pair);
    if (pair.size() != 2) p.error("each reducer argument group is a pair (%a: T, %b: T)");
    firsts.push_back(pair[0]);
    seconds.push_back(pair[1]);
  }
  firsts.insert(firsts.end(), seconds.begin(), seconds.end());
  if (firsts.empty()) p.error("expected the reducer arguments (%a: T, %b: T)");
  op.regions.push_back(p.parseRegion(firsts));
}

// Whether the body is `return op(arg0, arg1)` for one binary elementwise op on the
// scalars of the input's element type (the `applies` short form).
static std::optional<OpCode> appliedOp(const Op& op) {
  if (op.numOperands() != 2 || op.numRegions() != 1) return std::nullopt;
  const Region& body = op.region(0);
  if (body.size() != 2 || body.numArguments() != 2) return std::nullopt;
  const Op& inner = *body.front();
  const Op& ret = *body.back();
  if (inner.info().category != OpCategory::ElementwiseBinary || inner.numRegions() != 0 ||
      !inner.attrs().empty() || !inner.loc.isUnknown())
    return std::nullopt;
  if (inner.operand(0) != body.argument(0) || inner.operand(1) != body.argument(1)) return std::nullopt;
  if (!ret.is(ops::Return) || ret.numOperands() != 1 || ret.operand(0) != inner.result()) return std::nullopt;
  const Type& input = op.operand(0)->type();
  if (!input.isTensor()) return std::nullopt;
  Type scalar = Type::scalar(input.dtype());
  for (const Type& t : {body.argument(0)->type(), body.argument(1)->type(), inner.result()->type()})
    if (t != scalar) return std::nullopt;
  return inner.code();
}

static void printReduce(Printer& p, const Op& op) {
  p.printResults(op);
  p.printOpName(op);
  size_t n = op.numOperands() / 2;
  p << "(";
  for (size_t i = 0; i < n; ++i) {
    if (i) p << ", (";
    p.printValue(op.operand(i));
    p << " init: ";
    p.printValue(op.operand(n + i));
    p << ")";
  }
  std::optional<OpCode> applied = appliedOp(op);
  if (applied) p << " applies " << opInfo(*applied).name;
  p << " across dimensions = ";
  printIntList(p, intsOr(op, "dimensions"));
  p.printRemainingAttrs(op, {"dimensions"});
  p << " : ";
  p.printFunctionType(op.operandTypes(), op.resultTypes());
  if (applied || op.numRegions() != 1) return;
  const Region& body = op.region(0);
  p.increaseIndent();
  p.newline();
  p << "reducer";
  p.nameRegionArgs(body);
  size_t pairs = body.numArguments() / 2;
  for (size_t i = 0; i < pairs; ++i) {
    p << "(";
    for (size_t k : {i, i + pairs}) {
      p.printValue(body.argument(k));
      p << ": ";
      p.printType(body.argument(k)->type());
      if (k == i) p << ", ";
    }
    p << ") ";
  }
  p.decreaseIndent();
  p.printRegion(body, /*entryArgs=*/false);
}

// ---- while:  stablehlo.while(%a = %x, ...) : T, ... attributes {..} cond {...} do {...} ----

static void parseWhile(Parser& p, Parser::PrettyOp& op) {
  std::vector<std::pair<std::string, Type>> args;
  std::vector<size_t> argOffsets;
  p.expect(Tok::LParen, "to open the loop variables");
  std::vector<std::string> names;
  if (!p.tok().is(Tok::RParen)) {
    do {
      Token name = p.expect(Tok::ValueId, "for a loop variable");
      p.expect(Tok::Equal, "after the loop variable");
      names.emplace_back(name.text);
      argOffsets.push_back(name.offset);
      op.operands.push_back(p.parseValueUse());
    } while (p.consumeIf(Tok::Comma));
  }
  p.expect(Tok::RParen, "to close the loop variables");
  if (!op.operands.empty()) {
    size_t offset = p.tok().offset;
    p.expect(Tok::Colon, "before the loop variable types");
    TypeList types = p.parseTypeList();
    p.checkOperandTypes(op.operands, types, offset);
  }
  if (p.consumeKeyword("attributes")) p.parseOptionalAttrDict(op.code, op.attrs);
  for (size_t i = 0; i < names.size(); ++i) args.emplace_back(names[i], op.operands[i]->type());
  for (Value* v : op.operands) op.resultTypes.push_back(v->type());
  p.expectKeyword("cond", "before the condition region of stablehlo.while");
  op.regions.push_back(p.parseRegion(args));
  p.expectKeyword("do", "before the body region of stablehlo.while");
  op.regions.push_back(p.parseRegion(args));
}

static void printWhile(Printer& p, const Op& op) {
  p.printResults(op);
  p.printOpName(op);
  if (op.numRegions() != 2) {
    p << "<<malformed while>>";
    return;
  }
  const Region& cond = op.region(0);
  const Region& body = op.region(1);
  p.nameRegionArgs(cond);
  for (size_t i = 0; i < body.numArguments() && i < cond.numArguments(); ++i)
    p.setValueName(body.argument(i), p.valueName(cond.argument(i)));
  p << "(";
  for (size_t i = 0; i < op.numOperands(); ++i) {
    if (i) p << ", ";
    p.printValue(i < cond.numArguments() ? cond.argument(i) : nullptr);
    p << " = ";
    p.printValue(op.operand(i));
  }
  p << ")";
  if (op.numOperands() > 0) {
    p << " : ";
    p.printTypeList(op.operandTypes());
  }
  p.printRemainingAttrs(op, {}, /*withKeyword=*/true);
  p.increaseIndent();
  p.newline();
  p << "cond ";
  p.decreaseIndent();
  p.printRegion(cond, false);
  p << " do ";
  p.printRegion(body, false);
}

// ---- chlo.scan(%in, ...) inits(%init, ...) dimension=0 attributes {..} {^bb0(...): ...} : T --

static void parseScan(Parser& p, Parser::PrettyOp& op) {
  p.expect(Tok::LParen, "to open the scan inputs");
  op.operands = p.parseValueUseList();
  p.expect(Tok::RParen, "to close the scan inputs");
  p.expectKeyword("inits", "in chlo.scan");
  p.expect(Tok::LParen, "to open the scan inits");
  std::vector<Value*> inits = p.parseValueUseList();
  p.addAttr(op.code, op.attrs, "operandSegmentSizes",
            Attribute::intArray(DType::I32, {static_cast<int64_t>(op.operands.size()),
                                             static_cast<int64_t>(inits.size())}),
            p.tok().offset);
  op.operands.insert(op.operands.end(), inits.begin(), inits.end());
  p.expect(Tok::RParen, "to close the scan inits");
  size_t offset = p.tok().offset;
  p.expectKeyword("dimension", "in chlo.scan");
  p.expect(Tok::Equal, "after 'dimension'");
  p.addAttr(op.code, op.attrs, "dimension", Attribute::integer(p.parseI64("for the scan dimension")), offset);
  if (p.consumeKeyword("attributes")) p.parseOptionalAttrDict(op.code, op.attrs);
  op.regions.push_back(p.parseRegion());
  size_t typeOffset = p.tok().offset;
  p.expect(Tok::Colon, "before the type of chlo.scan");
  TypeList inputs;
  p.parseFunctionType(inputs, op.resultTypes);
  p.checkOperandTypes(op.operands, inputs, typeOffset);
}

static void printScan(Printer& p, const Op& op) {
  p.printResults(op);
  p.printOpName(op);
  // operandSegmentSizes (as MLIR stores it) says how many operands are inputs.
  Attribute segments = op.attr("operandSegmentSizes");
  size_t numInputs = segments && segments.is(Attribute::Kind::DenseArray) && !segments.asInts().empty()
                         ? static_cast<size_t>(segments.asInts()[0])
                         : op.numOperands();
  numInputs = std::min(numInputs, op.numOperands());
  p << "(";
  for (size_t i = 0; i < numInputs; ++i) {
    if (i) p << ", ";
    p.printValue(op.operand(i));
  }
  p << ") inits(";
  for (size_t i = numInputs; i < op.numOperands(); ++i) {
    if (i > numInputs) p << ", ";
    p.printValue(op.operand(i));
  }
  p << ") dimension=" << std::to_string(op.attr("dimension") ? op.attr("dimension").asInt() : 0);
  p.printRemainingAttrs(op, {"dimension", "operandSegmentSizes"}, /*withKeyword=*/true);
  p << " ";
  if (op.numRegions() == 1) p.printRegion(op.region(0));
  p << " : ";
  p.printFunctionType(op.operandTypes(), op.resultTypes());
}

void parseCustomOp(Parser& p, Parser::PrettyOp& op, const std::string& form) {
  if (form == "constant") parseConstant(p, op);
  else if (form == "reduce") parseReduce(p, op);
  else if (form == "while") parseWhile(p, op);
  else if (form == "scan") parseScan(p, op);
  else throw Error(ErrorKind::Internal, "no parser for op form " + form);
}

void printCustomOp(Printer& p, const Op& op, const std::string& form) {
  if (form == "constant") printConstant(p, op);
  else if (form == "reduce") printReduce(p, op);
  else if (form == "while") printWhile(p, op);
  else if (form == "scan") printScan(p, op);
  else throw Error(ErrorKind::Internal, "no printer for op form " + form);
}

}  // namespace kiln::stablehlo
