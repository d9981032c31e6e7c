// What the per-op rule files of the verifier share: OpVerifier (the op being checked,
// with helpers to read it and to fail), the rule table, and shape helpers.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/verifier.h"

namespace kiln {

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
  // The same with a message built only on failure: rules run on every op of every module,
  // and most of their checks pass.
  template <class MakeMessage>
  requires std::is_invocable_v<MakeMessage>
  void check(bool condition, MakeMessage&& message) const {
    if (!condition) fail(message());
  }

  // Common facts.
  const Type& operandType(size_t i) const { return op_.operand(i)->type(); }
  const Type& resultType(size_t i = 0) const { return op_.result(i)->type(); }
  // The operand (or result) must be a tensor; returns it.
  const Type& tensorOperand(size_t i) const;
  const Type& tensorResult(size_t i = 0) const;
  std::vector<int64_t> ints(std::string_view attr) const;  // i64 array attribute (or default)
  int64_t integer(std::string_view attr) const;            // integer attribute (or default)
  bool has(std::string_view attr) const { return static_cast<bool>(op_.attr(attr)); }
  // An i64 array attribute, or `n` copies of `fill` when it is absent (strides, dilations).
  std::vector<int64_t> intsOr(std::string_view attr, int64_t n, int64_t fill) const;
  // An [n, 2] integer attribute (padding) as (low, high) pairs; n zero pairs when absent.
  std::vector<std::pair<int64_t, int64_t>> pairs(std::string_view attr, int64_t n) const;
  // The argument types of region i, and the types its stablehlo.return yields.
  TypeList regionArgTypes(size_t i) const;
  TypeList regionResultTypes(size_t i) const;

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
void addGatherScatterRules(RuleTable& table);
void addLinalgRules(RuleTable& table);
void addCollectiveRules(RuleTable& table);

// Helpers shared by the rule files.
std::string shapeStr(const Shape& shape);  // [2, 3]
bool isPermutation(const std::vector<int64_t>& v, int64_t n);
bool allUnique(const std::vector<int64_t>& v);
bool isSorted(const std::vector<int64_t>& v);
bool contains(const std::vector<int64_t>& v, int64_t x);
std::vector<int64_t> concat(std::vector<int64_t> a, const std::vector<int64_t>& b);
// Fails unless the (tensor) result has shape `expected`; `because()` says where the
// expected shape comes from.
template <class Because>
void checkResultShape(const OpVerifier& v, const Shape& expected, Because&& because) {
  const Shape& got = v.tensorResult().shape();
  v.check(got == expected, [&] {
    return "result shape " + shapeStr(got) + " does not match the expected " + shapeStr(expected) +
           " (" + std::string(because()) + ")";
  });
}
// Saturating arithmetic for shape formulas: attributes come from user text and may be
// huge, and a wrapped int64 would be undefined behaviour (and a wrong message).
int64_t satAdd(int64_t a, int64_t b);
int64_t satMul(int64_t a, int64_t b);
// Fails unless every entry of the dimension list `what` lies in [0, rank) and none
// repeats; `rankOf` names whose rank it is ("operand", "result").
void checkDimensions(const OpVerifier& v, std::string_view what, const std::vector<int64_t>& dims,
                     int64_t rank, std::string_view rankOf = "operand");
// The spec's is_promotable for element types (reduction bodies may accumulate wider).
bool isPromotable(DType from, DType to);
// Positions of a window along one dimension (reduce_window, select_and_scatter,
// convolution): the input is dilated, then padded, the window dilated and strided.
int64_t windowPositions(int64_t size, int64_t window, int64_t stride, int64_t padLow,
                        int64_t padHigh, int64_t baseDilation = 1, int64_t windowDilation = 1);
// The integers held by `value` when a constant op defines it, so shape operands of the
// dynamic ops can be checked against static result shapes.
std::optional<std::vector<int64_t>> constantInts(const Value* value);
// Checks that region `region` of the op is a reducer (tensor<E0>, ..., tensor<EN-1>,
// tensor<E0>, ..., tensor<EN-1>) -> (tensor<E0>, ..., tensor<EN-1>) with each inputs[i]
// promotable to Ei, and returns the Ei.
std::vector<DType> checkReducer(const OpVerifier& v, size_t region,
                                const std::vector<DType>& inputs);

}  // namespace kiln
