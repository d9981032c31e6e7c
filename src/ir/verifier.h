// The verifier: checks that a module obeys the invariants of the StableHLO spec
// (../shared/reference/stablehlo-spec.md) — operand/result/region counts, attribute
// kinds, and each op's shape and type constraints (C1, C2, ... in the spec).
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "support/error.h"

namespace kiln {

// Throws kiln::Error (kind Verify) for the first violation, positioned at the op's text
// (when parsed) and naming the op and, where known, the user's source location.
void verifyModule(const Module& module);

// Every violation found, as formatted diagnostics (for tools and tests).
std::vector<Error> verifyModuleAll(const Module& module);

// ---- for the per-op rule files (verify_*.cc) ----

class OpVerifier {
 public:
  OpVerifier(const Module& module, const Op& op) : module_(module), op_(op) {}
  const Module& module() const { return module_; }
  const Op& op() const { return op_; }

  // Reports a violation: `stablehlo.add: <message>`.
  [[noreturn]] void fail(const std::string& message) const;
  void check(bool condition, const std::string& message) const {
    if (!condition) fail(message);
  }

  // Common facts.
  const Type& operandType(size_t i) const { return op_.operand(i)->type(); }
  const Type& resultType(size_t i = 0) const { return op_.result(i)->type(); }
  // The operand (or result) must be a tensor; returns it.
  const Type& tensorOperand(size_t i) const;
  const Type& tensorResult(size_t i = 0) const;
  std::vector<int64_t> ints(std::string_view attr) const;  // i64 array attribute (or default)
  int64_t integer(std::string_view attr) const;            // integer attribute (or default)

 private:
  const Module& module_;
  const Op& op_;
};

using OpRule = void (*)(OpVerifier&);

// Each family file fills in the rules of its ops.
struct RuleTable {
  std::vector<OpRule> rules;  // indexed by OpCode
  void set(OpCode code, OpRule rule) { rules[static_cast<size_t>(code)] = rule; }
};
void addElementwiseRules(RuleTable& table);
void addShapeRules(RuleTable& table);
void addRegionOpRules(RuleTable& table);
void addMiscRules(RuleTable& table);

// Helpers shared by the rule files.
std::string shapeStr(const Shape& shape);  // [2, 3]
bool isPermutation(const std::vector<int64_t>& v, int64_t n);
bool allUnique(const std::vector<int64_t>& v);

}  // namespace kiln
