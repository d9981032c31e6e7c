// Fusion: groups ops into kiln.fusion kernels that own a region, so the program stays
// executable by the interpreter and a backend compiles each fusion as one loop nest.
//
// First, a large, cheap elementwise op read by several kernels is given a copy per
// elementwise reader where a copy reads no more than its result (fusion_recompute.h).
// Then, walking each region from its last op to its first, every loop op (elementwise or
// an index map) and every reduce starts a group, and the group pulls in its producers:
//   - a producer all of whose readers are in the group moves in (loop and input fusion);
//   - a cheap producer (broadcast, iota, small constant) read elsewhere too is copied in;
//   - an expensive one read elsewhere too is not recomputed: it joins as an extra output
//     of the group (multi-output) when no path leads from its other readers back into
//     the group, and is refused otherwise;
//   - a dot or convolution whose only reader is an elementwise group of its shape
//     becomes that group's head (a dot epilogue, for backends that fuse them).
// Then groups that read the same large operand and do not depend on each other merge
// (sibling multi-output fusion). The cost model (fusion_cost.h) vetoes recomputing an
// expensive op behind a broadcast and strided reads of large transposes. Every decision
// is written to the FusionPlan in one line.
#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "ir/attr_records.h"
#include "ir/builder.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "passes/dependency_graph.h"
#include "passes/fusion_cost.h"
#include "passes/fusion_order.h"
#include "passes/fusion_recompute.h"
#include "passes/op_facts.h"
#include "passes/passes.h"
#include "support/error.h"

namespace kiln::passes {
namespace {

// Sibling fusion considers at most this many readers of one operand.
constexpr size_t kMaxSiblings = 8;

struct Group {
  std::vector<Op*> members;            // ops that move into the kernel
  std::vector<Op*> copies;             // cheap ops copied into it (the originals stay)
  bool hasReduce = false;
  bool hasDot = false;
  bool hasExtraOutput = false;         // multi-output: a producer also read outside
  bool mergedSiblings = false;
  int64_t space = 0;                   // elements of its iteration space
  int id = 0;
  int mergedInto = -1;                 // after a sibling merge: the surviving group
};

struct PendingDecision {
  bool fused;
  std::string what;  // the op, described
  int group;         // the target group (named at the end)
  std::string why;
};

int64_t elements(const Op& op) {
  int64_t n = 0;
  for (const Value* r : op.results())
    if (r->type().isTensor()) n = std::max(n, r->type().numElements());
  if (op.is(ops::Reduce)) n = std::max(n, op.operand(0)->type().numElements());
  return n;
}

// Whether `v` is defined inside one of `op`'s regions.
bool definedWithin(const Value* v, const Op& op) {
  for (size_t r = 0; r < op.numRegions(); ++r)
    if (op.region(r).contains(v)) return true;
  return false;
}

// Fusion of one region (a function body or a control-flow region).
class RegionFuser {
 public:
  RegionFuser(Region& region, const std::string& function, FusionPlan& plan, int& counter)
      : region_(region), function_(function), plan_(plan), counter_(counter) {
    for (auto& op : region.ops()) {
      position_[op.get()] = static_cast<int64_t>(ops_.size());
      ops_.push_back(op.get());
    }
    // Each op's readers, by position, for the reachability searches (the ops do not
    // change until the kernels are built).
    readers_.resize(ops_.size());
    groupAt_.assign(ops_.size(), -1);
    visitedOp_.assign(ops_.size(), 0);
    for (size_t i = 0; i < ops_.size(); ++i) {
      for (const Value* r : ops_[i]->results())
        for (const Use& use : r->uses())
          if (Op* user = topLevel(use.user); user && !user->info().isTerminator())
            readers_[i].push_back(static_cast<int32_t>(position_.at(user)));
      std::sort(readers_[i].begin(), readers_[i].end());
      readers_[i].erase(std::unique(readers_[i].begin(), readers_[i].end()), readers_[i].end());
    }
  }

  // Returns whether the region changed (kernels formed, copies removed, ops reordered).
  bool run() {
    for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
      Op* op = *it;
      // (A copied op stays as it is for its other readers: were it to start a group of
      // its own, that kernel would take it away from the kernels that copied it.)
      if (groupOf_.count(op) || copied_.count(op)) continue;
      FusionClass cls = fusionClass(*op);
      if (cls != FusionClass::Loop && cls != FusionClass::Reduce) continue;
      int g = newGroup(op);
      grow(g);
    }
    mergeSiblings();
    return materialize();
  }

 private:
  int newGroup(Op* root) {
    int g = static_cast<int>(groups_.size());
    groups_.push_back({});
    Group& group = groups_.back();
    group.id = g;
    group.space = elements(*root);
    add(g, root);
    return g;
  }

  void add(int g, Op* op) {
    groups_[g].members.push_back(op);
    groupOf_[op] = g;
    groupAt_[static_cast<size_t>(position_.at(op))] = g;
    if (op->is(ops::Reduce)) groups_[g].hasReduce = true;
    if (fusionClass(*op) == FusionClass::Dot) groups_[g].hasDot = true;
  }

  int find(int g) const {
    while (groups_[g].mergedInto >= 0) g = groups_[g].mergedInto;
    return g;
  }

  // The op of this region that holds `op` (itself or an ancestor), or null.
  Op* topLevel(Op* op) const { return region_.findAncestorOp(op); }

  bool inGroup(const Op* op, int g) const {
    auto it = groupOf_.find(op);
    return it != groupOf_.end() && find(it->second) == g;
  }

  // The readers of `op`'s results outside group `g` (top-level ops of this region, or
  // the terminator).
  std::vector<Op*> outsideReaders(const Op& op, int g) const {
    std::vector<Op*> readers;
    std::unordered_set<const Op*> seen;
    for (const Value* r : op.results())
      for (const Use& use : r->uses()) {
        Op* user = topLevel(use.user);
        if (user && !inGroup(user, g) && seen.insert(user).second) readers.push_back(user);
      }
    return readers;
  }

  // Whether something outside group `g` reads `op` (stops at the first: a broadcast
  // every layer reads has as many readers as the program has layers).
  bool hasReaderOutside(const Op& op, int g) const {
    for (const Value* r : op.results())
      for (const Use& use : r->uses())
        if (Op* user = topLevel(use.user); user && !inGroup(user, g)) return true;
    return false;
  }

  // Whether some path leads from any of `starts` into group `g`, treating every group
  // as one node (a path into one member and out of another counts). No op is skipped
  // for coming after g's last member in program order: a path may enter another group
  // late and leave it from an earlier member, so that order does not bound it.
  bool reachesGroup(const std::vector<Op*>& starts, int g) const {
    // A search per candidate over the whole region: dense marks, renewed by a new epoch
    // rather than cleared, keep it linear in the ops and edges it visits.
    ++epoch_;
    visitedGroup_.resize(groups_.size(), 0);
    std::vector<int32_t> stack;
    for (const Op* op : starts) stack.push_back(static_cast<int32_t>(position_.at(op)));
    while (!stack.empty()) {
      const size_t i = static_cast<size_t>(stack.back());
      stack.pop_back();
      if (visitedOp_[i] == epoch_) continue;
      visitedOp_[i] = epoch_;
      if (groupAt_[i] < 0) {
        stack.insert(stack.end(), readers_[i].begin(), readers_[i].end());
        continue;
      }
      const int h = find(groupAt_[i]);
      if (h == g) return true;
      if (visitedGroup_[static_cast<size_t>(h)] == epoch_) continue;
      visitedGroup_[static_cast<size_t>(h)] = epoch_;
      for (const Op* m : groups_[h].members) {
        const auto& next = readers_[static_cast<size_t>(position_.at(m))];
        stack.insert(stack.end(), next.begin(), next.end());
      }
    }
    return false;
  }

  // Whether every reader of `p` in group `g` is a dot: an epilogue kernel begins at its
  // dot, so what feeds the dot stays outside.
  bool readsOnlyFromDots(const Op& p, int g) const {
    bool any = false;
    for (const Value* r : p.results())
      for (const Use& use : r->uses()) {
        Op* user = topLevel(use.user);
        if (!user || !inGroup(user, g)) continue;
        if (fusionClass(*user) != FusionClass::Dot) return false;
        any = true;
      }
    return any;
  }

  void decide(bool fused, const Op& op, int g, std::string why) {
    decisions_.push_back({fused, describe(op), g, std::move(why)});
  }

  // Pulls producers into group `g` until none qualifies.
  void grow(int g) {
    for (size_t i = 0; i < groups_[g].members.size(); ++i) {
      Op* member = groups_[g].members[i];
      for (Value* v : valuesRead(*member, region_)) {
        if (v->isArgument()) continue;
        Op* producer = v->definingOp();
        if (groupOf_.count(producer)) continue;
        if (std::find(groups_[g].copies.begin(), groups_[g].copies.end(), producer) != groups_[g].copies.end())
          continue;
        consider(g, producer);
      }
    }
  }

  void consider(int g, Op* p) {
    Group& group = groups_[g];
    if (p->is(ops::Constant)) {
      if (isCheapToDuplicate(*p)) group.copies.push_back(p);  // scalars and splats live in the kernel
      return;
    }
    switch (fusionClass(*p)) {
      case FusionClass::Opaque:
        return decide(false, *p, g, "not fusible: not elementwise, an index map, a reduce or a dot");
      case FusionClass::Reduce:
        return decide(false, *p, g, "a reduce ends its kernel; its readers load the result");
      case FusionClass::Dot: {
        std::vector<Op*> outside = outsideReaders(*p, g);
        bool epilogue = !group.hasDot && !group.hasReduce && !group.hasExtraOutput && outside.empty() &&
                        elements(*p) == group.space;
        if (!epilogue)
          return decide(false, *p, g,
                        outside.empty() ? "the reader is not an elementwise epilogue of the dot's shape"
                                        : fmt::format("the dot has {} other readers", outside.size()));
        add(g, p);
        return decide(true, *p, g, "dot epilogue: its only reader is elementwise on its result");
      }
      case FusionClass::Loop: break;
    }
    if (group.hasDot && readsOnlyFromDots(*p, g))
      return decide(false, *p, g, "a dot reads its operands from memory (its kernel starts at the dot)");
    int64_t reuse = elements(*p) > 0 ? group.space / elements(*p) : 1;
    if (isExpensive(*p) && reuse > 1)
      return decide(false, *p, g,
                    fmt::format("would recompute {} {}x per element behind a broadcast", p->name(), reuse));
    if (std::optional<std::string> strided = stridedReadCost(*p)) return decide(false, *p, g, *strided);
    if (!hasReaderOutside(*p, g)) {
      add(g, p);
      return decide(true, *p, g, "all readers are in the kernel");
    }
    // (A copy may read what another kernel computes, a learning rate broadcast over
    // every parameter, say: the kernel already depended on that kernel through the
    // original, so no cycle forms, and nobody writes out the broadcast whole.)
    if (isCheapToDuplicate(*p)) {
      group.copies.push_back(p);
      copied_.insert(p);
      return decide(true, *p, g, "cheap: copied into the kernel, other readers keep the original");
    }
    std::vector<Op*> outside = outsideReaders(*p, g);
    if (reuse == 1 && !reachesGroup(outside, g)) {
      add(g, p);
      group.hasExtraOutput = true;
      return decide(true, *p, g,
                    fmt::format("multi-output: also written out for {} other reader{}, instead of a kernel of its own",
                                outside.size(), outside.size() == 1 ? "" : "s"));
    }
    decide(false, *p, g,
           fmt::format("read outside too, by an op this kernel depends on, so it cannot be an extra output; {} "
                       "would cost more than reading it",
                       isExpensive(*p) ? "recomputing an expensive op" : "computing it in two kernels"));
  }

  // Sibling multi-output fusion: groups reading the same large operand, with the same
  // iteration space and no path between them, share one pass over it.
  void mergeSiblings() {
    std::map<const Value*, std::vector<int>> readersOf;  // operand -> groups reading it
    std::vector<const Value*> order;
    for (const Group& group : groups_)
      for (const Op* m : group.members)
        for (Value* v : valuesRead(*m, region_)) {
          if (valueBytes(v->type()) < kSharedOperandMinBytes) continue;
          // What a group computes itself (members, and the copies it makes of cheap
          // ops such as splat constants) it does not read from memory.
          if (!v->isArgument() && (inGroup(v->definingOp(), group.id) ||
                                   std::count(group.copies.begin(), group.copies.end(), v->definingOp())))
            continue;
          auto& gs = readersOf[v];
          if (gs.empty()) order.push_back(v);
          if (std::find(gs.begin(), gs.end(), group.id) == gs.end()) gs.push_back(group.id);
        }
    for (const Value* v : order) {
      // Pairs among the first few readers only: an operand every kernel reads (a weight
      // used in every layer) would otherwise cost a reachability search per pair.
      const std::vector<int>& all = readersOf[v];
      std::vector<int> gs(all.begin(), all.begin() + std::min<size_t>(all.size(), kMaxSiblings));
      for (size_t i = 0; i < gs.size(); ++i) {
        for (size_t j = i + 1; j < gs.size(); ++j) {
          int a = find(gs[i]), b = find(gs[j]);
          if (a == b) continue;
          Group &ga = groups_[a], &gb = groups_[b];
          const Op& first = *gb.members.front();
          if (ga.hasDot || gb.hasDot) continue;
          if (ga.space != gb.space) {
            decide(false, first, a, "sibling of a different iteration space");
            continue;
          }
          std::vector<Op*> aMembers(ga.members), bMembers(gb.members);
          if (reachesGroup(bMembers, a) || reachesGroup(aMembers, b)) {
            decide(false, first, a, "sibling, but one reads what the other computes");
            continue;
          }
          for (Op* m : gb.members) ga.members.push_back(m);
          for (Op* c : gb.copies) ga.copies.push_back(c);
          ga.hasReduce = ga.hasReduce || gb.hasReduce;
          ga.mergedSiblings = true;
          gb.members.clear();
          gb.copies.clear();
          gb.mergedInto = a;
          decide(true, first, a,
                 fmt::format("sibling multi-output: both read {} ({} KiB) and now share one pass over it",
                             v->type().str(), valueBytes(v->type()) / 1024));
        }
      }
    }
  }

  FusionKind kindOf(const Group& g) const {
    if (g.hasDot) return FusionKind::DotEpilogue;
    if (g.hasReduce) return FusionKind::Input;
    if (g.mergedSiblings || g.hasExtraOutput) return FusionKind::MultiOutput;
    return FusionKind::Loop;
  }

  // Builds the kiln.fusion ops, then restores a valid order; returns whether anything
  // changed.
  bool materialize() {
    bool changed = false;
    std::map<int, std::string> names;     // group -> fusion name
    std::map<int, const Op*> soleMember;  // groups left as a single op
    std::vector<Op*> duplicated;
    std::vector<int> byPosition;
    for (const Group& g : groups_)
      if (g.mergedInto < 0 && !g.members.empty()) byPosition.push_back(g.id);
    auto lastPosition = [&](int g) {
      int64_t p = 0;
      for (const Op* m : groups_[g].members) p = std::max(p, position_.at(m));
      return p;
    };
    std::sort(byPosition.begin(), byPosition.end(), [&](int a, int b) { return lastPosition(a) < lastPosition(b); });
    for (int g : byPosition) {
      Group& group = groups_[g];
      size_t computing = group.members.size();
      for (const Op* c : group.copies)
        if (!c->is(ops::Constant)) ++computing;
      if (computing < 2) {
        soleMember[g] = group.members.front();
        continue;
      }
      std::string name = fmt::format("fusion.{}", counter_++);
      names[g] = name;
      build(group, name);
      changed = true;
      for (Op* c : group.copies) duplicated.push_back(c);
    }
    for (const PendingDecision& d : decisions_) {
      int g = find(d.group);
      std::string target = names.count(g) ? names[g] : soleMember.count(g) ? describe(*soleMember[g]) : "its reader";
      if (d.fused && !names.count(g)) continue;  // its group stayed one op: no kernel formed
      plan_.decisions.push_back({d.fused, function_, d.what + (d.fused ? " into " : " -> ") + target, d.why});
    }
    // Originals of copied ops that nobody reads any more.
    std::sort(duplicated.begin(), duplicated.end(), [&](Op* a, Op* b) { return position_.at(a) > position_.at(b); });
    duplicated.erase(std::unique(duplicated.begin(), duplicated.end()), duplicated.end());
    for (Op* d : duplicated) {
      bool used = false;
      for (const Value* r : d->results()) used = used || r->hasUses();
      if (!used) {
        region_.erase(d);
        changed = true;
      }
    }
    return restoreOrder() || changed;
  }

  void build(Group& group, const std::string& name) {
    std::vector<Op*> inside = group.members;
    for (Op* c : group.copies) inside.push_back(c);
    std::sort(inside.begin(), inside.end(), [&](Op* a, Op* b) { return position_.at(a) < position_.at(b); });
    inside.erase(std::unique(inside.begin(), inside.end()), inside.end());
    std::unordered_set<const Op*> internal(inside.begin(), inside.end());
    auto isInternal = [&](const Value* v) { return !v->isArgument() && internal.count(v->definingOp()); };
    inside = computeOrder(region_, inside);

    // Inputs: what the kernel reads from outside it — from this region, or from an
    // enclosing one when this is a loop or branch body that captures values.
    std::vector<Value*> inputs;
    auto input = [&](Value* v, const Op& reader) {
      if (isInternal(v) || definedWithin(v, reader)) return;
      if (std::find(inputs.begin(), inputs.end(), v) == inputs.end()) inputs.push_back(v);
    };
    for (Op* op : inside) {
      for (Value* v : op->operands()) input(v, *op);
      for (size_t r = 0; r < op->numRegions(); ++r)
        walk(op->region(r), [&](Op& nested) {
          for (Value* v : nested.operands()) input(v, *op);
        });
    }
    // Outputs: members' results read by anything but members. A copied op reads inside
    // through its clone, but its original stays for its other readers (and other
    // kernels' copies of it), so what it reads is written out too.
    const std::unordered_set<const Op*> computed(group.members.begin(), group.members.end());
    std::vector<Value*> outputs;
    for (Op* m : inside)
      if (computed.count(m))
        for (Value* r : m->results())
          for (const Use& use : r->uses())
            if (!computed.count(topLevel(use.user)) || use.user->info().isTerminator()) {
              outputs.push_back(r);
              break;
            }

    std::vector<Location> locs;
    for (const Op* m : group.members) locs.push_back(m->loc);
    std::vector<std::unique_ptr<Region>> regions;
    regions.push_back(std::make_unique<Region>());
    Region& body = *regions.back();
    ValueMap map;
    for (Value* v : inputs) map[v] = body.addArgument(v->type());
    for (Op* op : inside) body.push_back(op->clone(map));
    std::vector<Value*> yielded;
    for (Value* v : outputs) yielded.push_back(map.at(v));
    body.push_back(makeOp(ops::Return, yielded));

    std::unique_ptr<Op> fusion = makeOp(ops::Fusion, inputs, {{"kind", toAttr(kindOf(group))}},
                                        std::move(regions), {}, mergeLocations(locs));
    Op* last = *std::max_element(group.members.begin(), group.members.end(),
                                 [&](Op* a, Op* b) { return position_.at(a) < position_.at(b); });
    Op* placed = region_.insert(region_.positionOf(last), std::move(fusion));
    position_[placed] = position_.at(last);
    for (size_t i = 0; i < outputs.size(); ++i) outputs[i]->replaceAllUsesWith(placed->result(i));
    FusedKernel kernel;
    kernel.function = function_;
    kernel.name = name;
    kernel.kind = std::string(fusionKindName(kindOf(group)));
    for (const Op* op : inside)
      if (!op->is(ops::Constant)) kernel.members.push_back(describe(*op));
    kernel.loc = placed->loc;
    plan_.kernels.push_back(std::move(kernel));
    std::vector<Op*> members = group.members;
    std::sort(members.begin(), members.end(), [&](Op* a, Op* b) { return position_.at(a) > position_.at(b); });
    for (Op* m : members) region_.erase(m);

  }

  // A stable topological order: a fusion sits where its last member was, so a reader of
  // an earlier member may now come before it.
  bool restoreOrder() {
    DependencyGraph graph = dependencyGraph(region_);
    std::vector<size_t> waiting = graph.predecessors;
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (size_t i = 0; i < waiting.size(); ++i)
      if (waiting[i] == 0) ready.push(i);
    std::vector<size_t> order;
    while (!ready.empty()) {
      size_t i = ready.top();
      ready.pop();
      order.push_back(i);
      for (size_t s : graph.successors[i])
        if (--waiting[s] == 0) ready.push(s);
    }
    if (order.size() != graph.ops.size()) {
      std::string stuck;
      int shown = 0;
      for (size_t i = 0; i < waiting.size() && shown < 6; ++i)
        if (waiting[i] > 0) stuck += std::string(shown++ ? ", " : ": ") + describe(*graph.ops[i]);
      throw Error(ErrorKind::Internal, "fusion created a dependency cycle in @" + function_ + stuck);
    }
    return reorderRegion(region_, graph, order);
  }

  Region& region_;
  std::string function_;
  FusionPlan& plan_;
  int& counter_;
  std::vector<Op*> ops_;
  std::unordered_map<const Op*, int64_t> position_;
  std::vector<Group> groups_;
  std::unordered_map<const Op*, int> groupOf_;
  std::unordered_set<const Op*> copied_;  // cheap ops some group copied
  std::vector<PendingDecision> decisions_;
  // For reachesGroup, by position: each op's readers and group (-1: none yet), and the
  // search's marks.
  std::vector<std::vector<int32_t>> readers_;
  std::vector<int> groupAt_;
  mutable std::vector<uint32_t> visitedOp_, visitedGroup_;
  mutable uint32_t epoch_ = 0;
};

bool isKernel(const Op& op) {
  switch (op.code()) {
    case ops::Constant:
    case ops::Tuple:
    case ops::GetTupleElement:
      return false;
    default:
      return !op.info().isTerminator();
  }
}

// Kernels of a region: its compute ops, and those of the control-flow regions in it.
int64_t countKernels(const Region& region) {
  int64_t n = 0;
  for (const auto& op : region.ops()) {
    if (isKernel(*op)) ++n;
    if (op->info().category == OpCategory::ControlFlow)
      for (size_t i = 0; i < op->numRegions(); ++i) n += countKernels(op->region(i));
  }
  return n;
}

// Returns whether the region (or one nested in it) changed.
bool fuseRegion(Region& region, const std::string& function, FusionPlan& plan, int& counter) {
  bool changed = false;
  // Control-flow bodies are programs too (a while body runs once per iteration).
  for (auto& op : region.ops())
    if (op->info().category == OpCategory::ControlFlow)
      for (size_t i = 0; i < op->numRegions(); ++i)
        changed = fuseRegion(op->region(i), function, plan, counter) || changed;
  changed = recomputeCheapSharedOps(region, function, plan) || changed;
  return RegionFuser(region, function, plan, counter).run() || changed;
}

class FusionPass : public Pass {
 public:
  std::string_view name() const override { return "fusion"; }
  bool run(Module& module, PassContext& context) override {
    FusionPlan& plan = context.fusionPlan;
    bool changed = false;
    for (const auto& fn : module.functions()) {
      plan.kernelsBefore += countKernels(fn->body());
      int counter = 0;
      changed = fuseRegion(fn->body(), fn->name(), plan, counter) || changed;
      plan.kernelsAfter += countKernels(fn->body());
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createFusionPass() { return std::make_unique<FusionPass>(); }

}  // namespace kiln::passes
