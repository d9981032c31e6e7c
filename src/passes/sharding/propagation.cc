// Sharding propagation (see propagation.h).
#include "passes/sharding/propagation.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <map>
#include <set>

#include "ir/ops/stablehlo.h"
#include "ir/sharding_attrs.h"
#include "passes/sharding/sharding_rules.h"
#include "support/error.h"

namespace kiln::passes {
namespace {

using Axes = std::vector<std::string>;

// A sharding over the plan's mesh from what the program wrote.
Sharding normalized(const Sharding& given, const DeviceMesh& mesh, size_t rank, const std::string& what,
                    std::vector<std::string>& notes) {
  if (given.kind == Sharding::Kind::Manual)
    throwUnsupported("partitioning a manual sharding (" + what + "): shard_map regions are not partitioned yet");
  if (given.kind == Sharding::Kind::Maximal) {
    notes.push_back(what + ": a maximal sharding (one device) is computed on every device, replicated");
    return Sharding::replicatedOn(mesh, rank);
  }
  if (!given.unreduced.empty()) throwUnsupported("a given sharding with unreduced axes (" + what + ")");
  Sharding s = onMesh(given, mesh);
  s.open.assign(rank, false);
  s.replicated.clear();
  s.meshName.clear();
  return s;
}

class Propagator {
 public:
  Propagator(const Module& module, const Function& fn) : module_(module), fn_(fn) {}

  ShardingPlan run() {
    findManual(fn_.body());
    collectGiven();
    for (int round = 0; round < 8; ++round) {
      bool changed = visitRegion(fn_.body(), /*forward=*/true);
      changed |= visitRegion(fn_.body(), /*forward=*/false);
      if (!changed) break;
    }
    fillRegion(fn_.body());
    for (size_t i = 0; i < fn_.numParams(); ++i) fill(fn_.param(i));
    const Op& ret = *fn_.body().ops().back();
    for (size_t i = 0; i < ret.numOperands(); ++i) {
      if (plan_.manual.count(ret.operand(i)))
        throwUnsupported("result " + std::to_string(i) + " is a shard_map's own value (no @SPMDShardToFullShape)");
      auto given = givenResults_.find(i);
      plan_.results.push_back(given != givenResults_.end() ? given->second
                              : ret.operand(i)->type().isTensor() ? plan_.of(ret.operand(i))
                                                                   : Sharding());
    }
    return std::move(plan_);
  }

 private:
  // shard_map's values: what @SPMDFullToShardShape makes and what is computed from it,
  // up to @SPMDShardToFullShape; and each device's own ids (partition_id, replica_id:
  // what a shard_map's axis_index is computed from) and what is computed from them.
  void findManual(const Region& region) {
    for (const auto& op : region.ops()) {
      bool manual = shardMapBoundary(*op) == ShardMapBoundary::Entry || op->is(ops::PartitionId) ||
                    op->is(ops::ReplicaId);
      if (shardMapBoundary(*op) != ShardMapBoundary::Exit)
        for (const Value* v : op->operands()) manual = manual || plan_.manual.count(v);
      if (manual)
        for (const Value* v : op->results()) plan_.manual.insert(v);
      else if (partitionedInside(*op))
        for (size_t r = 0; r < op->numRegions(); ++r) findManual(op->region(r));
    }
  }
  bool touchesManual(const Op& op) const {
    for (const Value* v : op.operands())
      if (plan_.manual.count(v)) return true;
    for (const Value* v : op.results())
      if (plan_.manual.count(v)) return true;
    return false;
  }

  void collectGiven() {
    struct Given {
      const Value* value;  // null for a function result
      size_t result;
      Sharding sharding;
      std::string what;
    };
    std::vector<Given> given;
    for (size_t i = 0; i < fn_.numParams(); ++i)
      if (auto s = paramSharding(module_, fn_, i)) given.push_back({fn_.param(i), 0, *s, "parameter " + std::to_string(i)});
    for (size_t i = 0; i < fn_.resultTypes().size(); ++i)
      if (auto s = resultSharding(module_, fn_, i)) given.push_back({nullptr, i, *s, "result " + std::to_string(i)});
    auto givenOf = [&](const Op& op) {
      // A shard_map's own values, and its entry, have no global layout; its exit does.
      if (touchesManual(op) && shardMapBoundary(op) != ShardMapBoundary::Exit) return;
      if (auto all = opShardings(module_, op))
        for (size_t i = 0; i < all->size(); ++i) given.push_back({op.result(i), 0, (*all)[i], where(op)});
    };
    for (const auto& op : fn_.body().ops()) {
      givenOf(*op);
      walkNested(*op, givenOf);
    }
    std::vector<const DeviceMesh*> meshes;
    for (const Given& g : given) {
      if (g.sharding.kind == Sharding::Kind::Tiled) meshes.push_back(&g.sharding.mesh);
      if (!g.sharding.meshName.empty()) plan_.shardy = true, plan_.meshName = g.sharding.meshName;
    }
    std::optional<DeviceMesh> mesh = commonMesh(meshes);
    if (!mesh) throwUnsupported("shardings over meshes with no common refinement (different device orders)");
    plan_.mesh = *mesh;
    if (const DeviceMesh* named = module_.findMesh(plan_.meshName); !named || !(*named == plan_.mesh)) plan_.meshName.clear();
    for (const Given& g : given) {
      const Type& type = g.value ? g.value->type() : fn_.resultTypes()[g.result];
      if (!type.isTensor()) continue;
      Sharding s = normalized(g.sharding, plan_.mesh, static_cast<size_t>(type.rank()), g.what, plan_.notes);
      if (g.value) {
        plan_.values[g.value] = s;
      } else {
        givenResults_[g.result] = s;
      }
    }
    // A constraint's sharding is its operand's too when the constraint is its only use
    // (what XLA's @Sharding custom call means), so the op producing it can produce it so.
    walk(fn_.body(), [&](const Op& op) {
      const Value* operand = op.numOperands() ? op.operand(0) : nullptr;
      if (isShardingConstraint(op) && operand->uses().size() == 1 && plan_.values.count(op.result()) &&
          !plan_.values.count(operand))
        plan_.values.emplace(operand, plan_.values.at(op.result()));
    });
    // A result's sharding is also the first guess for the value returned there.
    const Op& ret = *fn_.body().ops().back();
    for (const auto& [i, s] : givenResults_)
      if (!plan_.values.count(ret.operand(i))) plan_.values.emplace(ret.operand(i), s);
  }

  // The values a plan covers: the function's, and those of the regions of while, if and
  // case (which are partitioned with their op); other regions run on whole values.
  static bool partitionedInside(const Op& op) {
    return op.is(ops::While) || op.is(ops::If) || op.is(ops::Case);
  }

  void fill(const Value* v) {
    if (v->type().isTensor() && !plan_.values.count(v) && !plan_.manual.count(v))
      plan_.values.emplace(v, Sharding::replicatedOn(plan_.mesh, static_cast<size_t>(v->type().rank())));
  }
  void fillRegion(const Region& region) {
    for (const auto& op : region.ops()) {
      for (const Value* v : op->results()) fill(v);
      if (!partitionedInside(*op)) continue;
      for (size_t r = 0; r < op->numRegions(); ++r) {
        for (const Value* v : op->region(r).arguments()) fill(v);
        fillRegion(op->region(r));
      }
    }
  }

  bool visitRegion(const Region& region, bool forward) {
    bool changed = false;
    auto one = [&](const Op& op) {
      changed |= visit(op, forward);
      if (!partitionedInside(op)) return;
      changed |= tieCarries(op);
      for (size_t r = 0; r < op.numRegions(); ++r) changed |= visitRegion(op.region(r), forward);
      changed |= tieCarries(op);
    };
    if (forward) {
      for (const auto& op : region.ops()) one(*op);
    } else {
      for (auto it = region.ops().rbegin(); it != region.ops().rend(); ++it) one(**it);
    }
    return changed;
  }

  // A while loop's carry i is one value seen five ways — the operand, the result, the
  // argument of both regions and what the body yields — with one sharding; an if's or a
  // case's result i is what each branch yields there.
  bool tieCarries(const Op& op) {
    bool changed = false;
    for (size_t i = 0; i < op.numResults(); ++i) {
      std::vector<const Value*> ways{op.result(i)};
      if (op.is(ops::While)) {
        ways.insert(ways.end(), {op.operand(i), op.region(0).argument(i), op.region(1).argument(i),
                                 op.region(1).terminator()->operand(i)});
      } else {
        for (size_t r = 0; r < op.numRegions(); ++r) ways.push_back(op.region(r).terminator()->operand(i));
      }
      if (!ways[0]->type().isTensor()) continue;
      const Sharding* known = nullptr;
      for (const Value* v : ways)
        if (auto it = plan_.values.find(v); it != plan_.values.end() && !known) known = &it->second;
      if (!known) continue;
      const Sharding s = *known;
      for (const Value* v : ways) changed |= plan_.values.emplace(v, s).second;
    }
    return changed;
  }

  // Shardings given inside the regions of while, if and case are read with the
  // function's; those inside other regions are not partitioned.
  void walkNested(const Op& op, std::function<void(const Op&)> given) {
    for (size_t r = 0; r < op.numRegions(); ++r)
      for (const auto& inner : op.region(r).ops()) {
        if (partitionedInside(op)) {
          given(*inner);
          walkNested(*inner, given);
        } else if (inner->attr(kHloShardingAttr) || inner->attr(kSdyShardingAttr)) {
          plan_.notes.push_back(where(*inner) + ": a sharding inside " + where(op) +
                                "'s region is not partitioned; the region runs on whole values");
        }
      }
  }

  // The axes `v` has on dimension `d`, if it has a sharding.
  const Axes* axesOf(const Value* v, int d) const {
    auto it = plan_.values.find(v);
    return it == plan_.values.end() ? nullptr : &it->second.dims[d];
  }

  // Carries shardings through `op` by its rule; true when a value got one.
  bool visit(const Op& op, bool forward) {
    if (touchesManual(op) || shardMapBoundary(op) == ShardMapBoundary::Exit) return false;
    ShardingRule rule = shardingRule(op);
    if (!rule.known) return false;
    struct Side {
      const std::vector<Value*>& values;
      const std::vector<std::vector<int>>& dims;
    };
    std::vector<Value*> operands = op.operands(), results = op.results();
    Side first{forward ? operands : results, forward ? rule.operandDims : rule.resultDims};
    Side second{forward ? results : operands, forward ? rule.resultDims : rule.operandDims};
    // Each factor's best split: among the splits its values offer, the one that
    // reshards the fewest bytes; its support is the bytes of the values offering it.
    struct Choice {
      Axes axes;
      int64_t cost = 0, support = 0;
      bool conflict = false;
    };
    std::vector<std::optional<Choice>> choices(rule.factors.size());
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind == ShardingRule::Kind::Replicated) continue;
      std::vector<std::pair<Axes, int64_t>> offers;  // in preference order
      for (const Side& side : {first, second})
        for (size_t k = 0; k < side.values.size(); ++k)
          for (size_t d = 0; d < side.dims[k].size(); ++d) {
            if (side.dims[k][d] != static_cast<int>(f)) continue;
            const Axes* axes = axesOf(side.values[k], static_cast<int>(d));
            if (axes && !axes->empty()) offers.emplace_back(*axes, side.values[k]->type().byteSize());
          }
      for (const auto& [candidate, bytes] : offers) {
        Choice c{candidate};
        for (const auto& [other, otherBytes] : offers) {
          (other == candidate ? c.support : c.cost) += otherBytes;
          c.conflict = c.conflict || other != candidate;
        }
        if (!choices[f] || c.cost < choices[f]->cost) choices[f] = std::move(c);
      }
    }
    // Factors claim their axes in order of support, so where two want one axis, the
    // split of more bytes keeps it.
    std::vector<size_t> order;
    for (size_t f = 0; f < rule.factors.size(); ++f)
      if (choices[f]) order.push_back(f);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return choices[a]->support > choices[b]->support; });
    std::vector<Axes> factorAxes(rule.factors.size());
    std::vector<std::string> used;
    for (size_t f : order) {
      const Choice& c = *choices[f];
      int64_t pieces = 1;
      bool clash = false;
      for (const std::string& a : c.axes) {
        pieces *= plan_.mesh.axisSize(a);
        clash = clash || std::find(used.begin(), used.end(), a) != used.end();
      }
      if (clash || !rule.factors[f].splitsInto(pieces)) {
        noteOnce(op, where(op) + ": a dimension of size " + std::to_string(rule.factors[f].size) + " stays whole" +
                         (clash ? ": " + axesText(c.axes) + " already splits a dimension of more bytes (" +
                                      std::to_string(c.support) + " bytes offered it here)"
                          : rule.factors[f].size % pieces != 0
                              ? ": " + axesText(c.axes) + " does not divide it"
                              : ": split over " + axesText(c.axes) + ", its windows would read beyond the neighbouring pieces"));
        continue;
      }
      if (c.conflict)
        noteOnce(op, where(op) + ": dimensions split differently; chose " + axesText(c.axes) + ", which reshards " +
                         std::to_string(c.cost) + " bytes");
      used.insert(used.end(), c.axes.begin(), c.axes.end());
      factorAxes[f] = c.axes;
    }
    bool changed = false;
    for (const Side& side : {first, second})
      for (size_t k = 0; k < side.values.size(); ++k) {
        const Value* v = side.values[k];
        if (!v->type().isTensor() || plan_.values.count(v)) continue;
        Sharding s = Sharding::replicatedOn(plan_.mesh, side.dims[k].size());
        bool any = false;
        for (size_t d = 0; d < side.dims[k].size(); ++d)
          if (int f = side.dims[k][d]; f >= 0 && !factorAxes[f].empty()) s.dims[d] = factorAxes[f], any = true;
        if (!any) continue;  // nothing known yet: later rounds may tell more
        plan_.values.emplace(v, std::move(s));
        changed = true;
      }
    return changed;
  }

  void noteOnce(const Op& op, std::string note) {
    if (noted_.insert({&op, note}).second) plan_.notes.push_back(std::move(note));
  }

  const Module& module_;
  const Function& fn_;
  ShardingPlan plan_;
  std::map<size_t, Sharding> givenResults_;
  std::set<std::pair<const Op*, std::string>> noted_;
};

}  // namespace

Attribute ShardingPlan::attribute(const Sharding& s) const {
  if (shardy) {
    Sharding named = s;
    named.meshName = meshName;
    return Attribute::opaque(printSdySharding(named));
  }
  return Attribute::string(printHloSharding(s));
}

bool hasShardings(const Module& module, const Function& fn) {
  for (size_t i = 0; i < fn.numParams(); ++i)
    if (findAttr(fn.argAttrs[i], kHloShardingAttr) || findAttr(fn.argAttrs[i], kSdyShardingAttr)) return true;
  for (size_t i = 0; i < fn.resultTypes().size(); ++i)
    if (findAttr(fn.resultAttrs[i], kHloShardingAttr) || findAttr(fn.resultAttrs[i], kSdyShardingAttr)) return true;
  bool found = false;
  walk(fn.body(), [&](Op& op) { found = found || op.attr(kHloShardingAttr) || op.attr(kSdyShardingAttr); });
  return found;
}

ShardingPlan propagateShardings(const Module& module, const Function& fn) { return Propagator(module, fn).run(); }

}  // namespace kiln::passes
