// The pretty-form format language of the op registry (OpInfo::syntax), compiled into
// items that both the parser and the printer walk, so an op's text form is written once
// and parse/print are symmetric by construction.
//
// A format is a space-separated list of items:
//   operands             the operand list: %a, %b (a comma is taken only before a value)
//   $name                attribute `name` in its short form: 3, [1, 2], LT, [DEFAULT],
//                        "text", @sym, dense<...> : T, <record fields>
//   attr-dict            the remaining attributes: {a = 1 : i32, b}
//   type(F)              the type clause, one of:
//                          same      T when all operand and result types equal T,
//                                    else (T1, T2) -> R
//                          fn        (T1, T2) -> R   or   (T1) -> (R1, R2)
//                          result    the result types only
//                          operands  the operand types; results get the same types
//                          select    Tpred, T  (on_true, on_false and result are T)
//                          complex   T  (operands are the real parts of T)
//                          tuple     the result tuple type; operands are its elements
//                          arrow     T1, T2 -> R  (CHLO)
//   custom(N)            a custom directive (slice ranges, conv window, dot dims, ...)
//   [[ ... ]]            an optional group: printed when its anchor (its first $attr, or
//                        `operands`, or a type clause of operands) is present and not the
//                        default; parsed when the input starts with its first literal
//   ^x                   the literal x, printed without a space before it
//   anything else        a literal keyword or punctuation: , = [ ] ( ) : dims ...
// A format "!name" means the whole op has a hand-written form (constant, reduce, while,
// scan), implemented in custom_ops.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/op_registry.h"

namespace kiln::stablehlo {

enum class TypeForm : uint8_t { Same, Fn, Result, Operands, Select, Complex, Tuple, Arrow };

struct SyntaxItem {
  enum class Kind : uint8_t { Literal, Operands, Attr, AttrDict, Type, Custom, Optional };
  Kind kind;
  std::string text;  // literal text, attribute name or custom directive name
  bool glue = false; // literal printed without a space before it
  TypeForm typeForm = TypeForm::Fn;
  std::vector<SyntaxItem> group;  // Optional: the items of the group
};

struct OpSyntax {
  bool generic = true;     // no pretty form
  std::string customOp;    // "!name" formats: the name
  std::vector<SyntaxItem> items;
};

// The compiled syntax of an op (computed once per opcode). Throws Internal on a
// malformed format string (a bug in the registry).
const OpSyntax& opSyntax(OpCode code);

// Attribute names a format prints itself (so attr-dict leaves them out).
std::vector<std::string> attrsInSyntax(const OpSyntax& syntax);

}  // namespace kiln::stablehlo
