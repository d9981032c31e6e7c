// The printer's internals, shared by the files that implement it:
//   printer.cc         modules, functions, regions, value names, generic-form ops
//   attr_printer.cc    types, attributes, dense literals, floats, locations
//   pretty_printer.cc  ops in their pretty forms (the op_syntax formats)
#pragma once

#include <string>
#include <unordered_map>

#include "stablehlo/op_syntax.h"
#include "stablehlo/printer.h"

namespace kiln::stablehlo {

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : options_(options) {}

  std::string& out() { return out_; }
  Printer& operator<<(std::string_view s) {
    out_.append(s);
    return *this;
  }
  const PrintOptions& options() const { return options_; }

  void printModule(const Module& module);
  void printFunction(const Function& fn);
  void printOp(const Op& op);
  void printGenericOp(const Op& op);
  void printShardingConstraint(const Op& op);
  void printPrettyOp(const Op& op, const OpSyntax& syntax);
  // Region body in braces; `entryArgs` prints ^bb0(...) when the region has arguments.
  void printRegion(const Region& region, bool entryArgs = true);
  void printLocation(const Location& loc);  // ` loc(...)` when known and enabled
  void newline() {
    out_ += '\n';
    out_.append(static_cast<size_t>(indent_) * 2, ' ');
  }

  // ---- values ----
  void nameValues(const Region& region);  // assigns %argN / %N names in print order
  void nameRegionArgs(const Region& region);
  const std::string& valueName(const Value* v);
  void printValue(const Value* v) { out_ += valueName(v); }
  void printValueList(const std::vector<Value*>& values);
  // The result prefix `%a, %b = ` or `%3:2 = `.
  void printResults(const Op& op);

  // ---- types and attributes (attr_printer.cc) ----
  void printType(const Type& t) { out_ += t.str(); }
  void printTypeList(const TypeList& types);
  void printFunctionType(const TypeList& inputs, const TypeList& results);
  void printAttr(const Attribute& a);                 // full form
  void printAttrShort(const AttrSpec& spec, const Attribute& a);  // the form inside formats
  void printAttrDict(const NamedAttrList& attrs);     // {a = 1 : i32, b}
  void printDense(const Literal& lit);                // dense<...> : type
  void printRecordBody(const Attribute& record);      // <field = value, ...>
  void printConvDimensions(const Attribute& conv);    // [b, 0, 1, f]x[...]->[...]

  // ---- pretty forms (pretty_printer.cc) ----
  // Writes `text` after a space, unless it is closing punctuation, follows an opening
  // bracket, or is glued to what came before.
  void emit(std::string_view text, bool glue = false);
  void space();  // the leading space of a non-literal item, by the same rule
  void printItems(const Op& op, const std::vector<SyntaxItem>& items);
  void printTypeClause(const Op& op, TypeForm form);
  // The op's attributes that a format or custom form did not print and that differ
  // from their defaults: ` {a = 1 : i32}`; nothing when there are none.
  void printRemainingAttrs(const Op& op, const std::vector<std::string>& printed,
                           bool withKeyword = false);
  void printOpName(const Op& op);
  void setValueName(const Value* v, std::string name) { names_[v] = std::move(name); }
  void increaseIndent() { ++indent_; }
  void decreaseIndent() { --indent_; }

 private:
  PrintOptions options_;
  std::string out_;
  int indent_ = 0;
  std::unordered_map<const Value*, std::string> names_;
  size_t nextResult_ = 0, nextArg_ = 0;
  bool suppressSpace_ = false;
};

// Custom directives and hand-written op forms (custom_syntax.cc).
void printDirective(Printer& p, const Op& op, const std::string& directive);
void printCustomOp(Printer& p, const Op& op, const std::string& form);

// `@name`, quoted when the name is not a bare identifier.
std::string symbolText(const std::string& name);

// The value of an elided constant as it was written: dense_resource<__elided__> : T.
std::string elidedValueText(const Op& op);

// Whether an attribute is worth printing in an attr-dict: not equal to its default.
bool isNonDefault(const OpInfo& info, const NamedAttribute& attr);

}  // namespace kiln::stablehlo
