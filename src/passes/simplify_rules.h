// Private to the simplify pass: what a rewrite rule sees (the op it matches and a
// rewriter that places new ops and records the replacement), the rule tables of
// simplify_elementwise.cc and simplify_movement.cc, and the constant-matching helpers
// both use.
//
// A rule either declines (returns false, having changed nothing) or changes the IR only
// through the rewriter and returns true. The driver (simplify.cc) then revisits what the
// change may have enabled and deletes what it left dead.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"
#include "ir/literal.h"
#include "ir/op_table.h"

namespace kiln::passes::simplify {

class Driver;

class Rewriter {
 public:
  Rewriter(Driver& driver, Op& root) : driver_(driver), root_(root) {}

  Op& root() const { return root_; }

  // A new op right before the root. It takes the root's location, merged with the
  // locations of `absorbed` (the other ops the new one replaces).
  Op* create(OpCode code, const std::vector<Value*>& operands, const TypeList& resultTypes,
             NamedAttrList attrs = {}, const std::vector<const Op*>& absorbed = {});
  Value* createValue(OpCode code, const std::vector<Value*>& operands, const Type& resultType,
                     NamedAttrList attrs = {}, const std::vector<const Op*>& absorbed = {}) {
    return create(code, operands, {resultType}, std::move(attrs), absorbed)->result();
  }
  // A constant of `type` whose elements all equal element 0 of `element` (a scalar of
  // the same dtype).
  Value* splat(const Type& type, const Literal& element);

  // The root's results are replaced by `values` (same types, checked), and the root dies.
  void replace(const std::vector<Value*>& values);
  void replace(Value* value) { replace(std::vector<Value*>{value}); }
  // The same for an existing value, when it has the root's type; else changes nothing and
  // returns false (rules that forward an operand use it, so no type can ever change).
  bool replaceIfSameType(Value* value);

  // In-place edits of the root; `absorbed` ops' locations merge into the root's.
  void setOperands(const std::vector<Value*>& operands, const std::vector<const Op*>& absorbed = {});
  void setAttr(std::string name, Attribute value);

 private:
  Driver& driver_;
  Op& root_;
};

// A rule: rewrites `op` through `rw` and returns true, or returns false untouched.
using Rule = bool (*)(Op& op, Rewriter& rw);

struct NamedRule {
  const char* name;
  Rule rule;
};

// The rules of each opcode, tried in order until one applies.
class RuleTable {
 public:
  void add(OpCode code, const char* name, Rule rule) { rules_[code].push_back({name, rule}); }
  const std::vector<NamedRule>& rulesFor(OpCode code) const { return rules_[code]; }

 private:
  OpTable<std::vector<NamedRule>> rules_;
};

void addElementwiseRules(RuleTable& table);  // simplify_elementwise.cc
void addMovementRules(RuleTable& table);     // simplify_movement.cc

// ---- Matching helpers (simplify.cc) ---------------------------------------------

// The value of a constant op's result, or null when `v` is not a constant.
const Literal* constantOf(const Value* v);
// The value of a constant whose elements are all equal, as a one-element literal; empty
// for non-constants and for constants whose elements differ (large non-splat constants
// are not scanned: they are never splats in practice, and scanning would be quadratic).
std::optional<Literal> splatOf(const Value* v);

// Facts about element 0 of a literal (a splat element).
bool isIntValue(const Literal& e, int64_t value);  // integers and booleans (true = 1)
bool isAllOnes(const Literal& e);                   // integers: every bit; booleans: true
bool isFloatValue(const Literal& e, double value);  // floats, +0.0 and -0.0 equal
bool isPositiveZero(const Literal& e);              // floats: +0.0
bool isNegativeZero(const Literal& e);
// Whether the scalar `e` is the exact identity of `code` as a reducer (the registry's
// reducerIdentity): body(e, x) = body(x, e) = x for every x, bits included.
bool isReducerIdentity(OpCode code, const Literal& e);              // floats: -0.0; complex: both parts -0.0

// A one-element literal of `dtype` holding `value` (integers and booleans).
Literal scalarInt(DType dtype, int64_t value);

// The op defining `v` when it has opcode `code`, else null.
inline Op* producer(const Value* v, OpCode code) {
  Op* op = v->definingOp();
  return op && op->is(code) ? op : nullptr;
}

// Integer-like: the dtypes whose arithmetic wraps and has no signed zero or NaN.
inline bool isIntOrBool(DType t) { return isInteger(t) || isBool(t); }

}  // namespace kiln::passes::simplify
