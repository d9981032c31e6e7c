// Parsing ops in their pretty forms by walking the compiled op_syntax items.
#include "ir/attr_check.h"
#include "stablehlo/parser_impl.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::stablehlo {

Op* Parser::parsePrettyOp(Region& region, OpCode code, const ResultNames& names, size_t nameOffset) {
  const OpInfo& info = opInfo(code);
  const OpSyntax& syntax = opSyntax(code);
  PrettyOp op{code, {}, {}, {}, {}, names.total};
  if (info.category == OpCategory::Check && tok_.is(Tok::LParen)) {
    parseIreeCheckOp(op);  // IREE's check dialect spells operands in parentheses
  } else if (syntax.generic) {
    errorAt(nameOffset, std::string(info.name) + " has no pretty form; write it in the generic form \"" +
                            std::string(info.name) + "\"(...) : (...) -> ...");
  } else if (!syntax.customOp.empty()) {
    parseCustomOp(*this, op, syntax.customOp);
  } else {
    parseItems(op, syntax.items);
  }
  return finishOp(region, code, op.operands, op.resultTypes, std::move(op.attrs), std::move(op.regions),
                  names, nameOffset);
}

void Parser::addAttr(OpCode code, NamedAttrList& attrs, const std::string& name, Attribute value, size_t offset) {
  if (findAttr(attrs, name)) errorAt(offset, "attribute '" + name + "' is given twice");
  setAttr(attrs, name, canonicalAttr(opInfo(code), name, value, offset));
}

void Parser::parseOptionalAttrDict(OpCode code, NamedAttrList& attrs) {
  if (!tok_.is(Tok::LBrace)) return;
  size_t offset = tok_.offset;
  for (NamedAttribute& a : parseAttrDict()) addAttr(code, attrs, a.name, a.value, offset);
}

void Parser::parseItems(PrettyOp& op, const std::vector<SyntaxItem>& items) {
  const OpInfo& info = opInfo(op.code);
  for (const SyntaxItem& item : items) {
    switch (item.kind) {
      case SyntaxItem::Kind::Literal: {
        const std::string& text = item.text;
        bool matched = tok_.text == text && !tok_.is(Tok::String);
        if (!matched) error("expected '" + text + "' in " + std::string(info.name) + ", found '" + std::string(tok_.text) + "'");
        advance();
        break;
      }
      case SyntaxItem::Kind::Operands: {
        std::vector<Value*> values = parseValueUseList();
        op.operands.insert(op.operands.end(), values.begin(), values.end());
        break;
      }
      case SyntaxItem::Kind::Attr: {
        size_t offset = tok_.offset;
        Attribute value = parseAttrShort(*info.findAttr(item.text));
        addAttr(op.code, op.attrs, item.text, value, offset);
        break;
      }
      case SyntaxItem::Kind::Optional:
        if (tok_.text == item.group[0].text && !tok_.is(Tok::String)) parseItems(op, item.group);
        break;
      case SyntaxItem::Kind::AttrDict: parseOptionalAttrDict(op.code, op.attrs); break;
      case SyntaxItem::Kind::Type: parseTypeClause(op, item.typeForm); break;
      case SyntaxItem::Kind::Custom: parseDirective(*this, op, item.text); break;
    }
  }
}

Attribute Parser::parseAttrShort(const AttrSpec& spec) {
  size_t offset = tok_.offset;
  auto boolToken = [&]() -> int64_t {
    if (tok_.isKeyword("true") || tok_.isKeyword("false")) {
      bool v = tok_.text == "true";
      advance();
      return v;
    }
    int64_t v = parseI64("(a boolean)");
    if (v != 0 && v != 1) errorAt(offset, "expected true or false");
    return v;
  };
  switch (spec.kind) {
    case AttrKind::Int: return Attribute::integer(parseI64("for " + std::string(spec.name)), spec.dtype);
    case AttrKind::Float: return Attribute::floating(parseFloatValue(spec.dtype, "for " + std::string(spec.name)), spec.dtype);
    case AttrKind::Bool: return Attribute::boolean(boolToken() != 0);
    case AttrKind::I64Array: return Attribute::i64Array(parseI64List("for " + std::string(spec.name)));
    case AttrKind::BoolArray: {
      std::vector<int64_t> values;
      expect(Tok::LSquare, "for " + std::string(spec.name));
      if (!tok_.is(Tok::RSquare)) {
        do values.push_back(boolToken());
        while (consumeIf(Tok::Comma));
      }
      expect(Tok::RSquare, "for " + std::string(spec.name));
      return Attribute::intArray(DType::I1, std::move(values));
    }
    case AttrKind::Enum: {
      Token value = expect(Tok::BareId, "for " + std::string(spec.name));
      if (!isEnumValue(spec.type, value.text))
        errorAt(value.offset, "'" + std::string(value.text) + "' is not a " + std::string(spec.type) + " value");
      return Attribute::enumValue(std::string(spec.type), std::string(value.text));
    }
    case AttrKind::EnumArray: {
      std::vector<Attribute> values;
      expect(Tok::LSquare, "for " + std::string(spec.name));
      if (!tok_.is(Tok::RSquare)) {
        do {
          Token value = expect(Tok::BareId, "for " + std::string(spec.name));
          if (!isEnumValue(spec.type, value.text))
            errorAt(value.offset, "'" + std::string(value.text) + "' is not a " + std::string(spec.type) + " value");
          values.push_back(Attribute::enumValue(std::string(spec.type), std::string(value.text)));
        } while (consumeIf(Tok::Comma));
      }
      expect(Tok::RSquare, "for " + std::string(spec.name));
      return Attribute::array(std::move(values));
    }
    case AttrKind::String: {
      std::string s;
      Token t = expect(Tok::String, "for " + std::string(spec.name));
      if (!unescape(t.text, s)) errorAt(t.offset, "bad string escape");
      return Attribute::string(std::move(s));
    }
    case AttrKind::Record: {
      if (spec.type == "stablehlo.conv") return parseConvDimensions();
      const RecordSchema* schema = recordSchema(spec.type);
      if (!schema) errorAt(offset, "no schema for " + std::string(spec.type));
      expect(Tok::Less, "to open " + std::string(spec.name));
      return parseRecordBody(*schema, offset);
    }
    default: return parseAttribute();
  }
}

void Parser::checkOperandTypes(const std::vector<Value*>& operands, const TypeList& stated, size_t offset) {
  if (stated.size() != operands.size())
    errorAt(offset, "the type lists " + std::to_string(stated.size()) + " operand(s) but the op has " +
                        std::to_string(operands.size()));
  for (size_t i = 0; i < stated.size(); ++i) {
    if (stated[i] != operands[i]->type())
      errorAt(offset, "operand " + std::to_string(i) + " has type " + operands[i]->type().str() +
                          " but the op's type says " + stated[i].str());
  }
}

size_t Parser::fixedResultCount(const PrettyOp& op) const {
  const Arity& results = opInfo(op.code).results;
  return results.min == results.max ? static_cast<size_t>(results.min) : op.declaredResults;
}

void Parser::parseTypeClause(PrettyOp& op, TypeForm form) {
  size_t offset = tok_.offset;
  const std::vector<Value*>& operands = op.operands;
  switch (form) {
    case TypeForm::Fn:
    case TypeForm::Same:
    case TypeForm::Select:
    case TypeForm::Complex:
      if (tok_.is(Tok::LParen)) {  // every form accepts the full function type
        TypeList inputs;
        parseFunctionType(inputs, op.resultTypes);
        checkOperandTypes(operands, inputs, offset);
        return;
      }
      if (form == TypeForm::Fn) error("expected a function type '(...) -> ...'");
      break;
    default: break;
  }
  switch (form) {
    case TypeForm::Same: {
      Type t = parseType();
      checkOperandTypes(operands, TypeList(operands.size(), t), offset);
      op.resultTypes.assign(fixedResultCount(op), t);
      return;
    }
    case TypeForm::Select: {
      Type pred = parseType();
      expect(Tok::Comma, "between the predicate and result types of select");
      Type t = parseType();
      checkOperandTypes(operands, {pred, t, t}, offset);
      op.resultTypes = {t};
      return;
    }
    case TypeForm::Complex: {
      Type t = parseType();
      if (!t.isTensor() || !isComplex(t.dtype())) errorAt(offset, "expected a complex tensor type");
      Type part = t.withDType(complexPart(t.dtype()));
      checkOperandTypes(operands, {part, part}, offset);
      op.resultTypes = {t};
      return;
    }
    case TypeForm::Result:
      op.resultTypes = parseTypeList();
      return;
    case TypeForm::Operands: {
      TypeList types = operands.empty() ? TypeList{} : parseTypeList();
      checkOperandTypes(operands, types, offset);
      if (fixedResultCount(op) > 0) op.resultTypes = types;
      return;
    }
    case TypeForm::Tuple: {
      Type t = parseType();
      if (!t.isTuple()) errorAt(offset, "expected a tuple type");
      checkOperandTypes(operands, t.elements(), offset);
      op.resultTypes = {t};
      return;
    }
    case TypeForm::Arrow: {
      TypeList inputs = parseTypeList();
      checkOperandTypes(operands, inputs, offset);
      if (!tok_.is(Tok::Arrow) && inputs.size() == 1 && fixedResultCount(op) == 1) {
        // `: T` for `: T -> T`: how MHLO writes the math ops StableHLO keeps in CHLO.
        op.resultTypes = inputs;
        return;
      }
      expect(Tok::Arrow, "in the op's type");
      op.resultTypes = parseResultTypes();
      return;
    }
    default: return;
  }
}

// IREE's check dialect: check.expect_eq(%a, %b) : T, check.expect_eq_const(%a, dense<..> : T) : T
void Parser::parseIreeCheckOp(PrettyOp& op) {
  const OpInfo& info = opInfo(op.code);
  expect(Tok::LParen, "");
  op.operands = parseValueUseList();
  while (consumeIf(Tok::Comma)) {
    // The constant of the *_const ops, or a tolerance.
    size_t offset = tok_.offset;
    if (tok_.isKeyword("dense")) {
      addAttr(op.code, op.attrs, "value", parseAttribute(), offset);
    } else if (tok_.is(Tok::BareId)) {
      Token key = tok_;
      advance();
      expect(Tok::Equal, "after the attribute name");
      const AttrSpec* spec = info.findAttr(key.text);
      if (!spec) errorAt(key.offset, std::string(info.name) + " has no attribute '" + std::string(key.text) + "'");
      addAttr(op.code, op.attrs, std::string(key.text), parseAttrShort(*spec), offset);
    } else {
      error("unexpected '" + std::string(tok_.text) + "' in " + std::string(info.name));
    }
  }
  expect(Tok::RParen, "to close the operands");
  parseOptionalAttrDict(op.code, op.attrs);
  size_t offset = tok_.offset;
  expect(Tok::Colon, "before the type");
  Type t = parseType();
  checkOperandTypes(op.operands, TypeList(op.operands.size(), t), offset);
}

}  // namespace kiln::stablehlo
