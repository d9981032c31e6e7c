// Algebraic simplification: the worklist driver that applies the rewrite rules of
// simplify_elementwise.cc and simplify_movement.cc until none applies.
//
// Every op of the module (nested regions too) starts on one worklist. When a rule
// rewrites an op, the users of its old results and the ops it created go back on the
// list; ops left without users die (their producers may follow). Dead ops are only
// detached during the run and destroyed at its end, so no pointer on the list ever
// dangles or is reused. Each step costs time in the size of the ops it touches, never in
// the size of the region, so the pass stays linear in practice.
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/ops/stablehlo.h"
#include "passes/op_facts.h"
#include "passes/passes.h"
#include "passes/simplify_rules.h"
#include "support/error.h"

namespace kiln::passes {
namespace simplify {

// ---- Matching helpers -----------------------------------------------------------

const Literal* constantOf(const Value* v) {
  const Op* op = v->definingOp();
  if (!op || !op->is(ops::Constant)) return nullptr;
  Attribute value = op->attr("value");
  return value.is(Attribute::Kind::Dense) ? &value.asDense() : nullptr;
}

std::optional<Literal> splatOf(const Value* v) {
  const Literal* lit = constantOf(v);
  // Beyond this many elements only literals stored as splats count.
  constexpr int64_t kScanLimit = 64;
  if (!lit || lit->numElements() == 0) return std::nullopt;
  if (!lit->isSplat() && (lit->numElements() > kScanLimit || !lit->allElementsEqual())) return std::nullopt;
  return Literal::splat(Type::scalar(lit->dtype()), lit->storage());
}

bool isIntValue(const Literal& e, int64_t value) {
  if (!isIntOrBool(e.dtype())) return false;
  if (isUnsignedInt(e.dtype())) return value >= 0 && e.uintAt(0) == static_cast<uint64_t>(value);
  return e.intAt(0) == value;
}

bool isAllOnes(const Literal& e) {
  DType t = e.dtype();
  if (isBool(t)) return e.boolAt(0);
  if (isSignedInt(t)) return e.intAt(0) == -1;
  if (isUnsignedInt(t)) {
    int w = bitWidth(t);
    uint64_t mask = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
    return (e.uintAt(0) & mask) == mask;
  }
  return false;
}

bool isFloatValue(const Literal& e, double value) { return isFloat(e.dtype()) && e.floatAt(0) == value; }

bool isPositiveZero(const Literal& e) {
  return isFloat(e.dtype()) && e.floatAt(0) == 0 && !std::signbit(e.floatAt(0));
}

bool isReducerIdentity(OpCode code, const Literal& e) {
  std::optional<Literal> id = reducerIdentity(code, e.dtype());
  return id && e.storage() &&
         std::memcmp(id->storage(), e.storage(), static_cast<size_t>(storageBytes(e.dtype()))) == 0;
}

bool isNegativeZero(const Literal& e) {
  auto negZero = [](double d) { return d == 0 && std::signbit(d); };
  if (isFloat(e.dtype())) return negZero(e.floatAt(0));
  if (isComplex(e.dtype())) return negZero(e.complexAt(0).real()) && negZero(e.complexAt(0).imag());
  return false;
}

Literal scalarInt(DType dtype, int64_t value) {
  Literal lit(Type::scalar(dtype));
  lit.setInt(0, value);
  return lit;
}

// ---- The driver -----------------------------------------------------------------

class Driver {
 public:
  explicit Driver(Module& module) : module_(module) {
    static const RuleTable kRules = [] {
      RuleTable t;
      addElementwiseRules(t);
      addMovementRules(t);
      return t;
    }();
    rules_ = &kRules;
  }

  // Returns whether any rule rewrote anything.
  bool run() {
    // Every op, in program order (parents before the ops of their regions); the list is
    // a stack, so it is filled backwards.
    std::vector<Op*> all;
    for (const auto& fn : module_.functions()) indexRegion(fn->body(), all);
    for (auto it = all.rbegin(); it != all.rend(); ++it) push(*it);
    // Every rule makes the program smaller or moves work onto fewer ops, so this is a
    // generous bound that only a pair of rules undoing each other could reach.
    size_t budget = 8 * all.size() + 1024;
    bool rewrote = false;
    while (!worklist_.empty() && budget > 0) {
      Op* op = worklist_.back();
      worklist_.pop_back();
      queued_.erase(op);
      if (dead_.count(op) || insideDeadOp(*op)) continue;
      if (op->info().isTerminator() || kiln::passes::hasSideEffects(*op)) continue;
      for (const NamedRule& rule : rules_->rulesFor(op->code())) {
        Rewriter rw(*this, *op);
        if (!rule.rule(*op, rw)) continue;
        --budget;
        rewrote = true;
        break;
      }
    }
    for (Op* op : graveyard_) op->parentRegion()->erase(op);
    return rewrote;
  }

  // ---- What the rewriter calls ----

  Op* insertBefore(Op& root, std::unique_ptr<Op> op) {
    auto pos = positions_.at(&root);
    Op* raw = root.parentRegion()->insert(pos, std::move(op));
    positions_[raw] = std::prev(pos);
    push(raw);
    return raw;
  }

  void replace(Op& root, const std::vector<Value*>& values) {
    if (values.size() != root.numResults())
      throw Error(ErrorKind::Internal, "simplify: wrong number of replacement values");
    for (size_t i = 0; i < values.size(); ++i) {
      Value* old = root.result(i);
      if (values[i]->type() != old->type())
        throw Error(ErrorKind::Internal, "simplify: a rule changed the type of " + std::string(root.name()) +
                                             " from " + old->type().str() + " to " + values[i]->type().str());
      for (const Use& use : old->uses()) push(use.user);
      old->replaceAllUsesWith(values[i]);
    }
    kill(&root);
  }

  void setOperands(Op& root, const std::vector<Value*>& operands) {
    std::vector<Value*> old = root.operands();
    root.setOperands(operands);
    push(&root);
    for (Value* v : old) killIfUnused(v);
  }

  void changed(Op& root) {
    push(&root);
    for (Value* r : root.results())
      for (const Use& use : r->uses()) push(use.user);
  }

 private:
  void indexRegion(Region& region, std::vector<Op*>& all) {
    for (auto it = region.ops().begin(); it != region.ops().end(); ++it) {
      Op* op = it->get();
      positions_[op] = it;
      all.push_back(op);
      for (size_t r = 0; r < op->numRegions(); ++r) indexRegion(op->region(r), all);
    }
  }

  void push(Op* op) {
    if (queued_.insert(op).second) worklist_.push_back(op);
  }

  bool insideDeadOp(const Op& op) const {
    for (const Op* p = op.parentOp(); p; p = p->parentOp())
      if (dead_.count(p)) return true;
    return false;
  }

  // Detaches a dead op from its operands; producers left without users follow it.
  void kill(Op* op) {
    std::vector<Op*> stack{op};
    while (!stack.empty()) {
      Op* o = stack.back();
      stack.pop_back();
      if (!dead_.insert(o).second) continue;
      graveyard_.push_back(o);
      std::vector<Value*> operands = o->operands();
      o->setOperands({});
      for (Value* v : operands)
        if (Op* p = deadProducer(v)) stack.push_back(p);
    }
  }

  void killIfUnused(Value* v) {
    if (Op* p = deadProducer(v)) kill(p);
  }

  // The producer of `v` when nothing uses any of its results and it may be removed.
  Op* deadProducer(Value* v) const {
    Op* p = v->definingOp();
    if (!p || dead_.count(p) || p->info().isTerminator() || kiln::passes::hasSideEffects(*p)) return nullptr;
    for (Value* r : p->results())
      if (r->hasUses()) return nullptr;
    return p;
  }

  Module& module_;
  const RuleTable* rules_;
  std::unordered_map<Op*, Region::iterator> positions_;
  std::vector<Op*> worklist_;
  std::unordered_set<Op*> queued_;
  std::unordered_set<const Op*> dead_;
  std::vector<Op*> graveyard_;  // in order of death: users before their producers
};

// ---- The rewriter ---------------------------------------------------------------

Op* Rewriter::create(OpCode code, const std::vector<Value*>& operands, const TypeList& resultTypes,
                     NamedAttrList attrs, const std::vector<const Op*>& absorbed) {
  Location loc = root_.loc;
  if (!absorbed.empty()) {
    std::vector<Location> locs{root_.loc};
    for (const Op* op : absorbed) locs.push_back(op->loc);
    loc = mergeLocations(locs);
  }
  // Result types are inferred; the rule's are the ones that are parameters of the op.
  auto op = makeOp(code, operands, std::move(attrs), {}, resultTypes, std::move(loc));
  op->pos = root_.pos;
  return driver_.insertBefore(root_, std::move(op));
}

Value* Rewriter::splat(const Type& type, const Literal& element) {
  Literal value = Literal::splat(type, element.storage());
  return create(ops::Constant, {}, {type}, {{"value", Attribute::dense(std::move(value))}})->result();
}

void Rewriter::replace(const std::vector<Value*>& values) { driver_.replace(root_, values); }

bool Rewriter::replaceIfSameType(Value* value) {
  if (root_.numResults() != 1 || value->type() != root_.result()->type()) return false;
  replace(value);
  return true;
}

void Rewriter::setOperands(const std::vector<Value*>& operands, const std::vector<const Op*>& absorbed) {
  if (!absorbed.empty()) {
    std::vector<Location> locs{root_.loc};
    for (const Op* op : absorbed) locs.push_back(op->loc);
    root_.loc = mergeLocations(locs);
  }
  driver_.setOperands(root_, operands);
}

void Rewriter::setAttr(std::string name, Attribute value) {
  root_.setAttr(std::move(name), std::move(value));
  driver_.changed(root_);
}

}  // namespace simplify

namespace {
class SimplifyPass : public Pass {
 public:
  std::string_view name() const override { return "simplify"; }
  bool run(Module& module, PassContext&) override { return simplify::Driver(module).run(); }
};
}  // namespace

std::unique_ptr<Pass> createSimplifyPass() { return std::make_unique<SimplifyPass>(); }

}  // namespace kiln::passes
