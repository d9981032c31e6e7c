// Compiling the registry's format strings.
#include "stablehlo/op_syntax.h"

#include <mutex>
#include <sstream>

#include "support/error.h"

namespace kiln::stablehlo {
namespace {

// The attributes each custom directive reads and writes.
const std::vector<std::string>& directiveAttrs(const std::string& directive) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kTable = {
      {"slice", {"start_indices", "limit_indices", "strides"}},
      {"window", {"window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal"}},
      {"dot-dims", {"dot_dimension_numbers"}},
      {"exponent-mantissa", {"exponent_bits", "mantissa_bits"}},
      {"target", {"call_target_name"}},
  };
  for (const auto& [name, attrs] : kTable)
    if (name == directive) return attrs;
  throw Error(ErrorKind::Internal, "unknown custom directive '" + directive + "'");
}

[[noreturn]] void bad(const OpInfo& info, const std::string& why) {
  throw Error(ErrorKind::Internal,
              "malformed syntax for " + std::string(info.name) + ": " + why);
}

std::vector<SyntaxItem> compileItems(const OpInfo& info, const std::vector<std::string>& words,
                                     size_t& i, bool inGroup) {
  std::vector<SyntaxItem> items;
  while (i < words.size()) {
    const std::string& w = words[i++];
    SyntaxItem item;
    item.kind = SyntaxItem::Kind::Literal;
    item.text = w;
    if (w == "]]") {
      if (!inGroup) bad(info, "']]' without '[['");
      return items;
    } else if (w == "[[") {
      item.kind = SyntaxItem::Kind::Optional;
      item.group = compileItems(info, words, i, true);
      if (item.group.empty() || item.group[0].kind != SyntaxItem::Kind::Literal)
        bad(info, "an optional group must start with a literal");
    } else if (w == "operands") {
      item.kind = SyntaxItem::Kind::Operands;
    } else if (w == "attr-dict") {
      item.kind = SyntaxItem::Kind::AttrDict;
    } else if (w[0] == '$') {
      item.kind = SyntaxItem::Kind::Attr;
      item.text = w.substr(1);
      if (!info.findAttr(item.text)) bad(info, "unknown attribute " + w);
    } else if (w.rfind("type(", 0) == 0 && w.back() == ')') {
      item.kind = SyntaxItem::Kind::Type;
      std::string form = w.substr(5, w.size() - 6);
      static const std::pair<const char*, TypeForm> kForms[] = {
          {"same", TypeForm::Same},         {"fn", TypeForm::Fn},
          {"result", TypeForm::Result},     {"operands", TypeForm::Operands},
          {"select", TypeForm::Select},     {"complex", TypeForm::Complex},
          {"tuple", TypeForm::Tuple},       {"arrow", TypeForm::Arrow}};
      bool found = false;
      for (const auto& [n, f] : kForms) {
        if (form == n) {
          item.typeForm = f;
          found = true;
        }
      }
      if (!found) bad(info, "unknown type form " + w);
    } else if (w.rfind("custom(", 0) == 0 && w.back() == ')') {
      item.kind = SyntaxItem::Kind::Custom;
      item.text = w.substr(7, w.size() - 8);
      directiveAttrs(item.text);  // throws for an unknown directive
    } else if (w[0] == '^' && w.size() > 1) {
      item.text = w.substr(1);
      item.glue = true;
    }
    items.push_back(std::move(item));
  }
  if (inGroup) bad(info, "'[[' without ']]'");
  return items;
}

OpSyntax compile(const OpInfo& info) {
  OpSyntax syntax;
  if (info.syntax.empty()) return syntax;
  syntax.generic = false;
  if (info.syntax[0] == '!') {
    syntax.customOp = std::string(info.syntax.substr(1));
    return syntax;
  }
  std::vector<std::string> words;
  std::istringstream in{std::string(info.syntax)};
  for (std::string w; in >> w;) words.push_back(w);
  size_t i = 0;
  syntax.items = compileItems(info, words, i, false);
  return syntax;
}

void collectAttrs(const std::vector<SyntaxItem>& items, std::vector<std::string>& out) {
  for (const SyntaxItem& item : items) {
    if (item.kind == SyntaxItem::Kind::Attr) out.push_back(item.text);
    if (item.kind == SyntaxItem::Kind::Custom)
      for (const std::string& a : directiveAttrs(item.text)) out.push_back(a);
    if (item.kind == SyntaxItem::Kind::Optional) collectAttrs(item.group, out);
  }
}

}  // namespace

const OpSyntax& opSyntax(OpCode code) {
  static const std::vector<OpSyntax> kSyntaxes = [] {
    std::vector<OpSyntax> all;
    for (const OpInfo& info : allOps()) all.push_back(compile(info));
    return all;
  }();
  return kSyntaxes[static_cast<size_t>(code)];
}

std::vector<std::string> attrsInSyntax(const OpSyntax& syntax) {
  std::vector<std::string> names;
  collectAttrs(syntax.items, names);
  return names;
}

}  // namespace kiln::stablehlo
