// Printing ops in their pretty forms by walking the compiled op_syntax items.
#include "ir/ops/stablehlo.h"
#include "stablehlo/printer_impl.h"

namespace kiln::stablehlo {

void Printer::emit(std::string_view text, bool glue) {
  bool closing = text == "," || text == ")" || text == "]";
  if (!glue && !closing && !suppressSpace_) out_ += ' ';
  out_.append(text);
  suppressSpace_ = text == "(" || text == "[";
}

void Printer::space() {
  if (!suppressSpace_) out_ += ' ';
  suppressSpace_ = false;
}

void Printer::printOpName(const Op& op) {
  // Inside function bodies MLIR prints the func dialect's ops without their prefix.
  if (op.is(ops::FuncReturn)) out_ += "return";
  else if (op.is(ops::FuncCall)) out_ += "call";
  else out_.append(op.name());
  suppressSpace_ = false;
}

void Printer::printPrettyOp(const Op& op, const OpSyntax& syntax) {
  if (!syntax.customOp.empty()) {
    printCustomOp(*this, op, syntax.customOp);
    return;
  }
  printResults(op);
  printOpName(op);
  printItems(op, syntax.items);
}

namespace {

// Whether an optional group's anchor is present (so the group is printed).
bool anchorPresent(const Op& op, const std::vector<SyntaxItem>& group) {
  for (const SyntaxItem& item : group) {
    switch (item.kind) {
      case SyntaxItem::Kind::Attr: {
        Attribute a = op.attr(item.text);
        return a && isNonDefault(op.info(), NamedAttribute{item.text, a});
      }
      case SyntaxItem::Kind::Operands: return op.numOperands() > 0;
      case SyntaxItem::Kind::Type: return item.typeForm != TypeForm::Operands || op.numOperands() > 0;
      default: break;
    }
  }
  return true;
}

}  // namespace

void Printer::printItems(const Op& op, const std::vector<SyntaxItem>& items) {
  for (const SyntaxItem& item : items) {
    switch (item.kind) {
      case SyntaxItem::Kind::Literal: emit(item.text, item.glue); break;
      case SyntaxItem::Kind::Operands:
        if (op.numOperands() == 0) break;
        space();
        printValueList(op.operands());
        break;
      case SyntaxItem::Kind::Attr: {
        space();
        Attribute a = op.attrOrDefault(item.text);
        if (!a) {
          out_ += "<<missing " + item.text + ">>";
          break;
        }
        printAttrShort(*op.info().findAttr(item.text), a);
        break;
      }
      case SyntaxItem::Kind::Optional:
        if (anchorPresent(op, item.group)) printItems(op, item.group);
        break;
      case SyntaxItem::Kind::AttrDict: printRemainingAttrs(op, attrsInSyntax(opSyntax(op.code()))); break;
      case SyntaxItem::Kind::Type:
        space();
        printTypeClause(op, item.typeForm);
        break;
      case SyntaxItem::Kind::Custom:
        space();
        printDirective(*this, op, item.text);
        break;
    }
  }
}

void Printer::printRemainingAttrs(const Op& op, const std::vector<std::string>& printed, bool withKeyword) {
  NamedAttrList rest;
  for (const NamedAttribute& a : op.attrs()) {
    bool done = false;
    for (const std::string& p : printed) done = done || p == a.name;
    if (!done && isNonDefault(op.info(), a)) rest.push_back(a);
  }
  if (rest.empty()) return;
  space();
  if (withKeyword) out_ += "attributes ";
  printAttrDict(rest);
}

void Printer::printTypeClause(const Op& op, TypeForm form) {
  TypeList in = op.operandTypes();
  TypeList out = op.resultTypes();
  auto allEqual = [](const TypeList& types, const Type& t) {
    for (const Type& x : types)
      if (x != t) return false;
    return true;
  };
  switch (form) {
    case TypeForm::Same:
      if (in.empty()) {
        printTypeList(out);
      } else if ((out.empty() && allEqual(in, in[0])) ||
                 (out.size() == 1 && allEqual(in, out[0]))) {
        printType(in[0]);
      } else {
        printFunctionType(in, out);
      }
      return;
    case TypeForm::Fn: printFunctionType(in, out); return;
    case TypeForm::Result: printTypeList(out); return;
    case TypeForm::Operands: printTypeList(in); return;
    case TypeForm::Select:
      if (in.size() == 3 && out.size() == 1 && in[1] == out[0] && in[2] == out[0]) {
        printType(in[0]);
        out_ += ", ";
        printType(out[0]);
      } else {
        printFunctionType(in, out);
      }
      return;
    case TypeForm::Complex:
      if (out.size() == 1 && out[0].isTensor() && isComplex(out[0].dtype()) &&
          allEqual(in, out[0].withDType(complexPart(out[0].dtype())))) {
        printType(out[0]);
      } else {
        printFunctionType(in, out);
      }
      return;
    case TypeForm::Tuple: printTypeList(out); return;
    case TypeForm::Arrow:
      printTypeList(in);
      out_ += " -> ";
      if (out.size() == 1) {
        printType(out[0]);
      } else {
        out_ += "(";
        printTypeList(out);
        out_ += ")";
      }
      return;
  }
}

}  // namespace kiln::stablehlo
