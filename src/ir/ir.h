// The IR data structures: SSA values, ops and regions (DESIGN §3).
//
// An Op is data: an opcode (whose facts live in the op registry), operand values,
// result values, attributes, nested regions and a location. A Region is one block:
// arguments and an ordered list of ops ending in a terminator. Values know their uses,
// so replacing all uses is cheap; ops can be inserted and erased while a pass walks.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/attribute.h"
#include "ir/location.h"
#include "ir/op_registry.h"
#include "ir/type.h"
#include "support/source.h"

namespace kiln {

class Op;
class Region;
class Function;

// One use of a value: operand `index` of op `user`.
struct Use {
  Op* user;
  unsigned index;
  bool operator==(const Use&) const = default;
};

// An SSA value: a result of an op, or an argument of a region (a function parameter or
// a block argument of a nested region).
class Value {
 public:
  const Type& type() const { return type_; }
  void setType(Type type) { type_ = std::move(type); }
  Op* definingOp() const { return op_; }  // null for region arguments
  Region* ownerRegion() const { return region_; }  // region arguments only
  // The region that defines it: its owner region, or its defining op's region.
  Region* parentRegion() const;
  unsigned index() const { return index_; }  // result number or argument number
  bool isArgument() const { return op_ == nullptr; }

  // Every use, in no particular order (removing one moves the last into its place).
  const std::vector<Use>& uses() const { return uses_; }
  bool hasUses() const { return !uses_.empty(); }
  // Makes every user of this value use `other` instead.
  void replaceAllUsesWith(Value* other);

 private:
  friend class Op;
  friend class Region;
  Value(Type type, Op* op, Region* region, unsigned index)
      : type_(std::move(type)), op_(op), region_(region), index_(index) {}
  void addUse(Op* user, unsigned index);
  void removeUse(const Op* user, unsigned index);

  Type type_;
  Op* op_;
  Region* region_;
  unsigned index_;
  std::vector<Use> uses_;
};

// Value -> value map for cloning regions and functions.
using ValueMap = std::unordered_map<const Value*, Value*>;

class Region {
 public:
  using OpList = std::list<std::unique_ptr<Op>>;
  using iterator = OpList::iterator;

  Region() = default;
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  ~Region();

  // Arguments.
  Value* addArgument(Type type);
  size_t numArguments() const { return args_.size(); }
  Value* argument(size_t i) const { return args_[i].get(); }
  std::vector<Value*> arguments() const;

  // Ops, in order.
  OpList& ops() { return ops_; }
  const OpList& ops() const { return ops_; }
  bool empty() const { return ops_.empty(); }
  size_t size() const { return ops_.size(); }
  Op* front() const { return ops_.empty() ? nullptr : ops_.front().get(); }
  Op* back() const { return ops_.empty() ? nullptr : ops_.back().get(); }
  // The terminator (the last op) when it is one, else null.
  Op* terminator() const;

  // Takes ownership of `op` and places it before `pos` (or at the end).
  Op* insert(iterator pos, std::unique_ptr<Op> op);
  Op* push_back(std::unique_ptr<Op> op) { return insert(ops_.end(), std::move(op)); }
  // Removes `op` (whose results must have no uses) and destroys it.
  void erase(Op* op);
  // Detaches `op` without destroying it (for moving ops between regions).
  std::unique_ptr<Op> take(Op* op);
  // Where `op` (an op of this region) is, in constant time.
  iterator positionOf(Op* op);

  // Who owns this region: an op, or a function (for function bodies).
  Op* parentOp() const { return parentOp_; }

  // Whether `v` is defined in this region or in a region nested inside it.
  bool contains(const Value* v) const;
  // The op of this region that is `op` or holds it (in a nested region); null when
  // `op` is not inside this region.
  Op* findAncestorOp(Op* op) const;
  Function* parentFunction() const { return parentFunction_; }

  // Clones arguments and ops into the empty region `dest`; `map` gains every mapping.
  void cloneInto(Region& dest, ValueMap& map) const;

  // Makes its ops (nested ones too) read nothing, so that regions whose ops read each
  // other's values can then be destroyed in any order. (The destructor does it for
  // values of the region itself.)
  void dropOperandUses();

 private:
  friend class Op;
  friend class Function;
  std::vector<std::unique_ptr<Value>> args_;
  OpList ops_;
  Op* parentOp_ = nullptr;
  Function* parentFunction_ = nullptr;
};

class Op {
 public:
  // Creates a detached op. Operand uses are recorded immediately.
  static std::unique_ptr<Op> create(OpCode code, const std::vector<Value*>& operands,
                                    const TypeList& resultTypes, NamedAttrList attrs = {},
                                    size_t numRegions = 0, Location loc = {});
  // The same, taking ownership of already-built regions (the parser builds them first).
  static std::unique_ptr<Op> create(OpCode code, const std::vector<Value*>& operands,
                                    const TypeList& resultTypes, NamedAttrList attrs,
                                    std::vector<std::unique_ptr<Region>> regions, Location loc = {});
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;
  ~Op();

  OpCode code() const { return code_; }
  const OpInfo& info() const { return opInfo(code_); }
  std::string_view name() const { return info().name; }
  bool is(OpCode c) const { return code_ == c; }

  // Operands.
  size_t numOperands() const { return operands_.size(); }
  Value* operand(size_t i) const { return operands_[i]; }
  const std::vector<Value*>& operands() const { return operands_; }
  TypeList operandTypes() const;
  void setOperand(size_t i, Value* value);
  void setOperands(const std::vector<Value*>& values);

  // Results.
  size_t numResults() const { return results_.size(); }
  Value* result(size_t i = 0) const { return results_[i].get(); }
  std::vector<Value*> results() const;
  TypeList resultTypes() const;

  // Attributes (a sorted list; unknown names read as None).
  const NamedAttrList& attrs() const { return attrs_; }
  Attribute attr(std::string_view name) const { return findAttr(attrs_, name); }
  void setAttr(std::string name, Attribute value) { kiln::setAttr(attrs_, std::move(name), std::move(value)); }
  bool removeAttr(std::string_view name) { return kiln::removeAttr(attrs_, name); }
  // The attribute, or its registry default when absent (None when it has no default).
  Attribute attrOrDefault(std::string_view name) const;

  // Regions.
  size_t numRegions() const { return regions_.size(); }
  Region& region(size_t i) const { return *regions_[i]; }

  // Position in the IR.
  Region* parentRegion() const { return parent_; }
  Op* parentOp() const { return parent_ ? parent_->parentOp() : nullptr; }

  // Where the op came from: `loc` is the user's location (from loc(...) or the frontend),
  // `pos` the position of the op in the text it was parsed from (when parsed).
  Location loc;
  SourcePos pos;

  // A copy of this op whose operands are looked up in `map` (unmapped ones stay as
  // they are); its results and nested region values are added to `map`.
  std::unique_ptr<Op> clone(ValueMap& map) const;

  // Structural identity for CSE: opcode, attributes, operands, result types, regions.
  size_t structuralHash() const;
  bool structurallyEqual(const Op& other) const;

 private:
  friend class Region;
  friend class Value;
  explicit Op(OpCode code) : code_(code) {}
  void dropOperandUses();

  OpCode code_;
  std::vector<Value*> operands_;
  std::vector<uint32_t> usePositions_;  // where operand i's use sits in its value's uses()
  std::vector<std::unique_ptr<Value>> results_;
  NamedAttrList attrs_;
  std::vector<std::unique_ptr<Region>> regions_;
  Region* parent_ = nullptr;
  Region::iterator self_;  // position in parent_->ops(), valid while parent_ is set
};

// Visits `region` and every nested region, ops in order, parents before children.
void walk(const Region& region, const std::function<void(Op&)>& fn);

// The one binary op of a reducer body `return op(arg0, arg1)` (arguments in either
// order), or null when the body is anything else.
const Op* binaryBodyOp(const Region& body);

}  // namespace kiln
