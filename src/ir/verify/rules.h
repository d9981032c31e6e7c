// What the per-op type rules share: InferContext (the op being typed, with helpers to
// read it, to fail and to record the result types), the rule table, and shape helpers.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/attr_records.h"
#include "ir/infer.h"
#include "ir/op_table.h"
#include "ir/verifier.h"

namespace kiln {

// What a rule sees: the parts of one op (it may not exist yet: the builder asks before it
// creates the op), helpers to read them, and the result types the rule infers.
//
// A rule checks the spec's constraints on the operands, attributes and regions, and
// records each result's type with infer() (the op determines it), inferShape() or
// inferDType() (it determines one half, the other is a parameter of the op) or given()
// (the result type is a parameter, e.g. custom_call's). Parameters come from `given`:
// the declared types when verifying, the builder's arguments when building. When
// `compare` is set (the verifier), infer() fails at once on a declared type that differs,
// saying why the inferred one is right.
class InferContext {
 public:
  InferContext(const OpParts& parts, bool compare);
  const OpParts& parts() const { return parts_; }
  const OpInfo& info() const { return info_; }
  OpCode code() const { return parts_.code; }
  const Module* module() const { return parts_.module; }

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

  // Operands.
  size_t numOperands() const { return parts_.operands.size(); }
  const Value* operand(size_t i) const { return parts_.operands[i]; }
  const Type& operandType(size_t i) const { return parts_.operands[i]->type(); }
  TypeList operandTypes() const;
  // The operand must be a tensor; returns it.
  const Type& tensorOperand(size_t i) const;

  // Attributes.
  Attribute attr(std::string_view name) const { return findAttr(parts_.attrs, name); }
  Attribute attrOrDefault(std::string_view name) const;
  std::vector<int64_t> ints(std::string_view attr) const;  // i64 array attribute (or default)
  int64_t integer(std::string_view attr) const;            // integer attribute (or default)
  bool has(std::string_view attr) const { return static_cast<bool>(this->attr(attr)); }
  // An i64 array attribute, or `n` copies of `fill` when it is absent (strides, dilations).
  std::vector<int64_t> intsOr(std::string_view attr, int64_t n, int64_t fill) const;
  // An [n, 2] integer attribute (padding) as (low, high) pairs; n zero pairs when absent.
  std::vector<std::pair<int64_t, int64_t>> pairs(std::string_view attr, int64_t n) const;

  // Regions: their argument types, and the types their stablehlo.return yields.
  size_t numRegions() const { return parts_.regions.size(); }
  const Region& region(size_t i) const { return *parts_.regions[i]; }
  TypeList regionArgTypes(size_t i) const;
  TypeList regionResultTypes(size_t i) const;

  // Results. `because` says where an inferred type comes from, for the message.
  template <class Because>
  void infer(size_t i, const Type& type, Because&& because) {
    record(i, {type, true, true});
    if (compare_ && i < givenCount() && givenType(i) != type) mismatch(i, type, because());
  }
  void infer(size_t i, const Type& type) {
    infer(i, type, [] { return std::string(); });
  }
  // The shape is determined; the element type is a parameter (dot_general's
  // preferred element type, convert's target).
  template <class Because>
  void inferShape(size_t i, const Shape& shape, Because&& because) {
    Type t = Type::tensor(givenTensor(i).dtype(), shape);
    record(i, {t, true, false});
    if (compare_ && givenType(i) != t) mismatch(i, t, because());
  }
  // The element type is determined; the shape is a parameter (reshape, broadcast_in_dim).
  template <class Because>
  void inferDType(size_t i, DType dtype, Because&& because) {
    Type t = givenTensor(i).withDType(dtype);
    record(i, {t, false, true});
    if (compare_ && givenType(i) != t) mismatch(i, t, because());
  }
  // The whole result type is a parameter; returns it. Fails when none was given.
  const Type& given(size_t i);
  // The given result type as a tensor (fails otherwise).
  const Type& givenTensor(size_t i);
  // How many result types were given (0 when building an op that determines its results).
  size_t givenCount() const { return parts_.given ? parts_.given->size() : 0; }

  std::vector<InferredType> takeResults();

 private:
  void record(size_t i, InferredType t);
  const Type& givenType(size_t i) const { return (*parts_.given)[i]; }
  [[noreturn]] void mismatch(size_t i, const Type& inferred, const std::string& because) const;

  const OpParts& parts_;
  const OpInfo& info_;
  bool compare_;
  std::vector<InferredType> inferred_;
  std::vector<bool> recorded_;
};

using OpRule = void (*)(InferContext&);

// Each family file fills in the rules of its ops.
struct RuleTable {
  OpTable<OpRule> rules;
  void set(OpCode code, OpRule rule) { rules[code] = rule; }
};
void addElementwiseRules(RuleTable& table);
void addShapeRules(RuleTable& table);
void addRegionOpRules(RuleTable& table);
void addMiscRules(RuleTable& table);
void addGatherScatterRules(RuleTable& table);
void addLinalgRules(RuleTable& table);
void addCollectiveRules(RuleTable& table);
void addAutodiffOpRules(RuleTable& table);

// Helpers shared by the rule files.
// The results of calling the function `symbol` names, checked against the operands it
// is passed; without a module to look it up in, the results must be given.
void inferCallResults(InferContext& v, const Attribute& symbol);
std::string shapeStr(const Shape& shape);  // [2, 3]
bool isPermutation(const std::vector<int64_t>& v, int64_t n);
bool allUnique(const std::vector<int64_t>& v);
bool isSorted(const std::vector<int64_t>& v);
bool contains(const std::vector<int64_t>& v, int64_t x);
std::vector<int64_t> concat(std::vector<int64_t> a, const std::vector<int64_t>& b);
// Saturating arithmetic for shape formulas: attributes come from user text and may be
// huge, and a wrapped int64 would be undefined behaviour (and a wrong message).
int64_t satAdd(int64_t a, int64_t b);
int64_t satMul(int64_t a, int64_t b);
// Fails unless every entry of the dimension list `what` lies in [0, rank) and none
// repeats; `rankOf` names whose rank it is ("operand", "result").
void checkDimensions(const InferContext& v, std::string_view what, const std::vector<int64_t>& dims,
                     int64_t rank, std::string_view rankOf = "operand");
// A window list (strides, dilations, window sizes) has one positive entry per windowed
// dimension (`each` names them: "input dimension", "spatial dimension").
void checkWindowList(const InferContext& v, std::string_view attr, const std::vector<int64_t>& values,
                     int64_t n, std::string_view each);
// The window's padding attribute had the shape [n, 2].
void checkWindowPadding(const InferContext& v, const Window& w, int64_t n);
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
std::vector<DType> checkReducer(const InferContext& v, size_t region,
                                const std::vector<DType>& inputs);

}  // namespace kiln
