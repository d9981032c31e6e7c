// Values, ops and regions: use lists, insertion/erasure, cloning, structural identity.
#include "ir/ir.h"

#include <algorithm>

#include "ir/ops/stablehlo.h"
#include "support/error.h"

namespace kiln {

void Value::replaceAllUsesWith(Value* other) {
  if (other == this) return;
  // Each setOperand removes the last use in constant time.
  while (!uses_.empty()) {
    Use use = uses_.back();
    use.user->setOperand(use.index, other);
  }
}

// Uses are removed by moving the last one into the hole: a value read by thousands of
// ops (a bias every layer adds) must not make each removal a search.
void Value::removeUse(const Op* user, unsigned index) {
  uint32_t pos = user->usePositions_[index];
  Use last = uses_.back();
  uses_[pos] = last;
  last.user->usePositions_[last.index] = pos;
  uses_.pop_back();
}

void Value::addUse(Op* user, unsigned index) {
  user->usePositions_[index] = static_cast<uint32_t>(uses_.size());
  uses_.push_back(Use{user, index});
}

// ---- Region ---------------------------------------------------------------------

Region::~Region() {
  // Ops use values defined earlier in this region (also from nested regions): drop
  // every use first so that the order of destruction does not matter.
  dropOperandUses();
  ops_.clear();
}

void Region::dropOperandUses() {
  walk(*this, [](Op& op) { op.dropOperandUses(); });
}

Value* Region::addArgument(Type type) {
  args_.push_back(std::unique_ptr<Value>(
      new Value(std::move(type), nullptr, this, static_cast<unsigned>(args_.size()))));
  return args_.back().get();
}

std::vector<Value*> Region::arguments() const {
  std::vector<Value*> out;
  for (const auto& a : args_) out.push_back(a.get());
  return out;
}

Op* Region::terminator() const {
  Op* last = back();
  return last && last->info().isTerminator() ? last : nullptr;
}

Op* Region::insert(iterator pos, std::unique_ptr<Op> op) {
  Op* raw = op.get();
  raw->parent_ = this;
  raw->self_ = ops_.insert(pos, std::move(op));
  return raw;
}

void Region::erase(Op* op) {
  for (const auto& r : op->results_)
    if (r->hasUses())
      throw Error(ErrorKind::Internal, "erasing " + std::string(op->name()) + " whose results are in use");
  take(op);  // the returned owner destroys it
}

Region* Value::parentRegion() const { return op_ ? op_->parentRegion() : region_; }

bool Region::contains(const Value* v) const {
  for (const Region* r = v->parentRegion(); r; r = r->parentOp() ? r->parentOp()->parentRegion() : nullptr)
    if (r == this) return true;
  return false;
}

Op* Region::findAncestorOp(Op* op) const {
  while (op && op->parentRegion() != this) op = op->parentOp();
  return op;
}

Region::iterator Region::positionOf(Op* op) {
  if (op->parent_ != this) throw Error(ErrorKind::Internal, "op is not in this region");
  return op->self_;
}

std::unique_ptr<Op> Region::take(Op* op) {
  if (op->parent_ != this) throw Error(ErrorKind::Internal, "op is not in this region");
  std::unique_ptr<Op> owned = std::move(*op->self_);
  ops_.erase(op->self_);
  op->parent_ = nullptr;
  return owned;
}

void Region::cloneInto(Region& dest, ValueMap& map) const {
  for (const auto& a : args_) map[a.get()] = dest.addArgument(a->type());
  for (const auto& op : ops_) dest.push_back(op->clone(map));
}

// ---- Op -------------------------------------------------------------------------

std::unique_ptr<Op> Op::create(OpCode code, const std::vector<Value*>& operands,
                               const TypeList& resultTypes, NamedAttrList attrs,
                               size_t numRegions, Location loc) {
  std::vector<std::unique_ptr<Region>> regions;
  for (size_t i = 0; i < numRegions; ++i) regions.push_back(std::make_unique<Region>());
  return create(code, operands, resultTypes, std::move(attrs), std::move(regions), std::move(loc));
}

std::unique_ptr<Op> Op::create(OpCode code, const std::vector<Value*>& operands,
                               const TypeList& resultTypes, NamedAttrList attrs,
                               std::vector<std::unique_ptr<Region>> regions, Location loc) {
  std::unique_ptr<Op> op(new Op(code));
  op->setOperands(operands);
  for (size_t i = 0; i < resultTypes.size(); ++i)
    op->results_.push_back(std::unique_ptr<Value>(
        new Value(resultTypes[i], op.get(), nullptr, static_cast<unsigned>(i))));
  std::sort(attrs.begin(), attrs.end(),
            [](const NamedAttribute& a, const NamedAttribute& b) { return a.name < b.name; });
  op->attrs_ = std::move(attrs);
  for (auto& region : regions) {
    region->parentOp_ = op.get();
    op->regions_.push_back(std::move(region));
  }
  op->loc = std::move(loc);
  return op;
}

Op::~Op() {
  // Nested regions go first (their ops may use our operands' producers, never us).
  regions_.clear();
  dropOperandUses();
}

void Op::dropOperandUses() {
  for (size_t i = 0; i < operands_.size(); ++i) {
    if (!operands_[i]) continue;
    operands_[i]->removeUse(this, static_cast<unsigned>(i));
    operands_[i] = nullptr;
  }
}

TypeList Op::operandTypes() const {
  TypeList types;
  for (Value* v : operands_) types.push_back(v->type());
  return types;
}

void Op::setOperand(size_t i, Value* value) {
  Value*& slot = operands_[i];
  if (slot) slot->removeUse(this, static_cast<unsigned>(i));
  slot = value;
  if (value) value->addUse(this, static_cast<unsigned>(i));
}

void Op::setOperands(const std::vector<Value*>& values) {
  dropOperandUses();
  operands_.assign(values.size(), nullptr);
  usePositions_.assign(values.size(), 0);
  for (size_t i = 0; i < values.size(); ++i) setOperand(i, values[i]);
}

std::vector<Value*> Op::results() const {
  std::vector<Value*> out;
  for (const auto& r : results_) out.push_back(r.get());
  return out;
}

TypeList Op::resultTypes() const {
  TypeList types;
  for (const auto& r : results_) types.push_back(r->type());
  return types;
}

Attribute Op::attrOrDefault(std::string_view attrName) const {
  if (Attribute a = attr(attrName)) return a;
  if (const AttrSpec* spec = info().findAttr(attrName)) return spec->defaultValue();
  return {};
}

std::unique_ptr<Op> Op::clone(ValueMap& map) const {
  std::vector<Value*> operands;
  for (Value* v : operands_) {
    auto it = map.find(v);
    operands.push_back(it == map.end() ? v : it->second);
  }
  std::unique_ptr<Op> copy = create(code_, operands, resultTypes(), attrs_, regions_.size(), loc);
  copy->pos = pos;
  for (size_t i = 0; i < results_.size(); ++i) map[results_[i].get()] = copy->result(i);
  for (size_t i = 0; i < regions_.size(); ++i) regions_[i]->cloneInto(*copy->regions_[i], map);
  return copy;
}

size_t Op::structuralHash() const {
  size_t h = static_cast<size_t>(code_);
  auto mix = [&h](size_t v) { h = h * 1000003 ^ v; };
  for (Value* v : operands_) mix(std::hash<const Value*>()(v));
  for (const auto& r : results_) mix(r->type().hash());
  for (const NamedAttribute& a : attrs_) mix(std::hash<std::string>()(a.name) ^ a.value.hash());
  for (const auto& r : regions_) mix(r->size());
  return h;
}

namespace {

bool sameHeader(const Op& a, const Op& b) {
  return a.code() == b.code() && a.numOperands() == b.numOperands() &&
         a.numResults() == b.numResults() && a.numRegions() == b.numRegions() &&
         a.attrs() == b.attrs() && a.resultTypes() == b.resultTypes();
}

// Whether regions `a` and `b` compute the same thing, values of `a` mapped to `b`.
bool equivalentRegions(const Region& a, const Region& b, ValueMap& map) {
  if (a.numArguments() != b.numArguments() || a.size() != b.size()) return false;
  for (size_t i = 0; i < a.numArguments(); ++i) {
    if (a.argument(i)->type() != b.argument(i)->type()) return false;
    map[a.argument(i)] = b.argument(i);
  }
  auto ib = b.ops().begin();
  for (const auto& opA : a.ops()) {
    const Op& opB = **ib++;
    if (!sameHeader(*opA, opB)) return false;
    for (size_t i = 0; i < opA->numOperands(); ++i) {
      auto it = map.find(opA->operand(i));
      Value* expected = it == map.end() ? opA->operand(i) : it->second;
      if (expected != opB.operand(i)) return false;
    }
    for (size_t i = 0; i < opA->numRegions(); ++i)
      if (!equivalentRegions(opA->region(i), opB.region(i), map)) return false;
    for (size_t i = 0; i < opA->numResults(); ++i) map[opA->result(i)] = opB.result(i);
  }
  return true;
}

}  // namespace

bool Op::structurallyEqual(const Op& other) const {
  if (!sameHeader(*this, other) || operands_ != other.operands_) return false;
  ValueMap map;
  for (size_t i = 0; i < regions_.size(); ++i)
    if (!equivalentRegions(*regions_[i], *other.regions_[i], map)) return false;
  return true;
}

const Op* binaryBodyOp(const Region& body) {
  if (body.numArguments() != 2 || body.size() != 2) return nullptr;
  const Op* f = body.front();
  const Op* ret = body.back();
  if (!ret->is(ops::Return) || ret->numOperands() != 1 || f->numResults() != 1 ||
      ret->operand(0) != f->result() || f->numOperands() != 2)
    return nullptr;
  Value* a = body.argument(0);
  Value* b = body.argument(1);
  bool args = (f->operand(0) == a && f->operand(1) == b) || (f->operand(0) == b && f->operand(1) == a);
  return args ? f : nullptr;
}

void walk(const Region& region, const std::function<void(Op&)>& fn) {
  for (const auto& op : region.ops()) {
    fn(*op);
    for (size_t i = 0; i < op->numRegions(); ++i) walk(op->region(i), fn);
  }
}

}  // namespace kiln
