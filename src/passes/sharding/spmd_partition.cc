// SPMD partitioning (see spmd_partition.h).
#include "passes/sharding/spmd_partition.h"

#include <algorithm>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/ops/stablehlo.h"
#include "ir/sharding_attrs.h"
#include "passes/sharding/sharding_rules.h"
#include "support/error.h"

namespace kiln::passes {
namespace {

using Axes = std::vector<std::string>;

NamedAttrList withoutShardings(NamedAttrList attrs) {
  removeAttr(attrs, kHloShardingAttr);
  removeAttr(attrs, kSdyShardingAttr);
  return attrs;
}

class Partitioner {
 public:
  Partitioner(const Function& fn, const ShardingPlan& plan, PartitionReport& report)
      : fn_(fn), plan_(plan), report_(report) {}

  std::unique_ptr<Function> run() {
    TypeList params, results;
    for (size_t i = 0; i < fn_.numParams(); ++i) params.push_back(local(fn_.param(i)));
    for (size_t i = 0; i < fn_.resultTypes().size(); ++i)
      results.push_back(fn_.resultTypes()[i].isTensor() ? localType(fn_.resultTypes()[i], plan_.results[i])
                                                         : fn_.resultTypes()[i]);
    auto out = std::make_unique<Function>(fn_.name(), params, results);
    Builder b(out->body());
    Resharder resharder(b, plan_.mesh);
    for (size_t i = 0; i < fn_.numParams(); ++i) {
      map_[fn_.param(i)] = out->param(i);
      if (fn_.param(i)->type().isTensor()) layout_[fn_.param(i)] = plan_.of(fn_.param(i));
    }
    for (const auto& op : fn_.body().ops()) {
      if (op->is(ops::FuncReturn)) {
        resharder.setContext("the results");
        std::vector<Value*> values;
        for (size_t i = 0; i < op->numOperands(); ++i)
          values.push_back(op->operand(i)->type().isTensor()
                               ? resharder.reshard(map_.at(op->operand(i)), op->operand(i)->type(),
                                                   layout_.at(op->operand(i)), plan_.results[i])
                               : map_.at(op->operand(i)));
        b.ret(values, ops::FuncReturn);
        break;
      }
      emit(*op, b, resharder);
    }
    report_.collectives = resharder.counts();
    report_.notes.insert(report_.notes.end(), resharder.notes().begin(), resharder.notes().end());
    return out;
  }

 private:
  Type local(const Value* v) const { return v->type().isTensor() ? localType(v->type(), plan_.of(v)) : v->type(); }

  // The splits of `op`'s factors. Reductions first, as their operands are split (the
  // partial results then cost one all_reduce or reduce_scatter, where splitting them
  // differently would move the operands); then each parallel factor as a result's
  // planned sharding has it, else as an operand's layout does.
  std::vector<Axes> factorAxes(const Op& op, const ShardingRule& rule) const {
    std::vector<Axes> axes(rule.factors.size());
    std::vector<std::string> used;
    std::vector<size_t> order;
    for (size_t f = 0; f < rule.factors.size(); ++f)
      if (rule.factors[f].kind == ShardingRule::Kind::Reduction) order.push_back(f);
    for (size_t f = 0; f < rule.factors.size(); ++f)
      if (rule.factors[f].kind == ShardingRule::Kind::Parallel || rule.factors[f].kind == ShardingRule::Kind::Windowed)
        order.push_back(f);
    for (size_t f : order) {
      auto offer = [&](const std::vector<Value*>& values, const std::vector<std::vector<int>>& dims,
                       bool planned) -> std::optional<Axes> {
        for (size_t k = 0; k < values.size(); ++k)
          for (size_t d = 0; d < dims[k].size(); ++d) {
            if (dims[k][d] != static_cast<int>(f)) continue;
            const Sharding& s = planned ? plan_.of(values[k]) : layout_.at(values[k]);
            if (!s.dims[d].empty()) return s.dims[d];
          }
        return std::nullopt;
      };
      auto usable = [&](const std::optional<Axes>& chosen) {
        if (!chosen) return false;
        int64_t pieces = 1;
        for (const std::string& a : *chosen) {
          pieces *= plan_.mesh.axisSize(a);
          if (std::find(used.begin(), used.end(), a) != used.end()) return false;
        }
        return rule.factors[f].splitsInto(pieces);
      };
      std::optional<Axes> chosen = offer(op.results(), rule.resultDims, true);
      if (!usable(chosen)) chosen = offer(op.operands(), rule.operandDims, false);
      if (!usable(chosen)) continue;
      used.insert(used.end(), chosen->begin(), chosen->end());
      axes[f] = *chosen;
    }
    return axes;
  }

  Sharding layoutOf(size_t rank, const std::vector<int>& dims, const std::vector<Axes>& axes) const {
    Sharding s = Sharding::replicatedOn(plan_.mesh, rank);
    for (size_t d = 0; d < rank; ++d)
      if (dims[d] >= 0) s.dims[d] = axes[dims[d]];
    return s;
  }

  // Copies `op`'s regions, the values they read from outside mapped to whole ones.
  std::vector<std::unique_ptr<Region>> regionsOf(const Op& op, Resharder& resharder) {
    std::vector<std::unique_ptr<Region>> regions;
    if (op.numRegions() == 0) return regions;
    ValueMap captured;
    for (size_t r = 0; r < op.numRegions(); ++r)
      walk(op.region(r), [&](Op& inner) {
        for (Value* v : inner.operands()) {
          if (!map_.count(v) || captured.count(v)) continue;
          captured[v] = v->type().isTensor()
                            ? resharder.reshard(map_.at(v), v->type(), layout_.at(v),
                                                Sharding::replicatedOn(plan_.mesh, static_cast<size_t>(v->type().rank())))
                            : map_.at(v);
        }
      });
    for (size_t r = 0; r < op.numRegions(); ++r) {
      regions.push_back(std::make_unique<Region>());
      ValueMap m = captured;
      op.region(r).cloneInto(*regions.back(), m);
    }
    return regions;
  }

  // While, if and case run split as their results are: each region is partitioned in
  // place — a loop's regions take the carries' pieces and its body yields them laid out
  // as it took them (its condition a whole predicate); each branch yields the results'
  // pieces. Their other operands (a predicate, an index) are scalars.
  void emitWithRegions(const Op& op, Builder& b, Resharder& resharder) {
    const bool loop = op.is(ops::While);
    resharder.setContext(where(op));
    std::vector<Sharding> layouts;  // of each result
    TypeList types;
    for (const Value* v : op.results()) {
      layouts.push_back(v->type().isTensor() ? plan_.of(v) : Sharding());
      types.push_back(v->type().isTensor() ? localType(v->type(), layouts.back()) : v->type());
    }
    std::vector<Value*> operands;
    for (size_t i = 0; i < op.numOperands(); ++i) {
      const Value* v = op.operand(i);
      const Sharding want = loop ? layouts[i] : Sharding::replicatedOn(plan_.mesh, v->type().isTensor() ? v->type().rank() : 0);
      operands.push_back(v->type().isTensor() ? resharder.reshard(map_.at(v), v->type(), layout_.at(v), want) : map_.at(v));
    }
    std::vector<std::unique_ptr<Region>> regions;
    for (size_t r = 0; r < op.numRegions(); ++r) {
      const Region& from = op.region(r);
      auto region = std::make_unique<Region>();
      for (size_t i = 0; i < from.numArguments(); ++i) {  // a loop's carries
        map_[from.argument(i)] = region->addArgument(types[i]);
        if (from.argument(i)->type().isTensor()) layout_[from.argument(i)] = layouts[i];
      }
      Builder rb(*region);
      Resharder inner(rb, resharder);
      for (const auto& innerOp : from.ops()) {
        if (!innerOp->info().isTerminator()) {
          emit(*innerOp, rb, inner);
          continue;
        }
        std::vector<Value*> yields;
        inner.setContext(where(op) + "'s region " + std::to_string(r) + " yield");
        for (size_t i = 0; i < innerOp->numOperands(); ++i) {
          const Value* v = innerOp->operand(i);
          const Sharding want = loop && r == 0 ? Sharding::replicatedOn(plan_.mesh, 0) : layouts[i];
          yields.push_back(v->type().isTensor() ? inner.reshard(map_.at(v), v->type(), layout_.at(v), want) : map_.at(v));
        }
        rb.ret(yields);
      }
      regions.push_back(std::move(region));
    }
    std::unique_ptr<Op> copy = Op::create(op.code(), operands, types, withoutShardings(op.attrs()), std::move(regions), op.loc);
    copy->pos = op.pos;
    Op* placed = b.region().push_back(std::move(copy));
    for (size_t i = 0; i < op.numResults(); ++i) {
      map_[op.result(i)] = placed->result(i);
      if (op.result(i)->type().isTensor()) layout_[op.result(i)] = layouts[i];
    }
  }

  // shard_map: its entry hands over the operand's piece (laid out as the constraint
  // before it says); the code inside is each device's own, copied as it is (collectives
  // included); its exit takes each device's value as its piece of the global result.
  bool emitManual(const Op& op, Builder& b) {
    const bool entry = shardMapBoundary(op) == ShardMapBoundary::Entry, exit = shardMapBoundary(op) == ShardMapBoundary::Exit;
    bool inside = false;  // computed from a shard_map's values, or from the device's ids
    for (const Value* v : op.operands()) inside = inside || plan_.manual.count(v);
    for (const Value* v : op.results()) inside = inside || plan_.manual.count(v);
    if (!entry && !exit && !inside) return false;
    if (entry || exit) {
      const Value* from = op.operand(0);
      const Value* to = op.result();
      Value* piece = map_.at(from);
      const Type expected = exit ? localType(to->type(), plan_.of(to)) : to->type();
      if (piece->type() != expected)
        throwUnsupported(where(op) + ": the shard_map's pieces are " + expected.str() + ", but this device holds " +
                         piece->type().str() + " (a shard_map whose sharding differs from its operand's)");
      map_[to] = piece;
      if (exit) layout_[to] = plan_.of(to);
      return true;
    }
    std::vector<Value*> operands;
    for (const Value* v : op.operands()) operands.push_back(map_.at(v));
    std::vector<std::unique_ptr<Region>> regions;
    for (size_t r = 0; r < op.numRegions(); ++r) {
      regions.push_back(std::make_unique<Region>());
      ValueMap m = map_;
      op.region(r).cloneInto(*regions.back(), m);
    }
    std::unique_ptr<Op> copy = Op::create(op.code(), operands, op.resultTypes(), withoutShardings(op.attrs()),
                                          std::move(regions), op.loc);
    copy->pos = op.pos;
    Op* placed = b.region().push_back(std::move(copy));
    for (size_t i = 0; i < op.numResults(); ++i) map_[op.result(i)] = placed->result(i);
    return true;
  }

  void emit(const Op& op, Builder& b, Resharder& resharder) {
    resharder.setContext(where(op));
    if (emitManual(op, b)) return;
    if (op.info().category == OpCategory::Collective)
      throwUnsupported("partitioning a program with collectives of its own (" + where(op) + ")");
    if (op.is(ops::While) || op.is(ops::If) || op.is(ops::Case)) return emitWithRegions(op, b, resharder);
    ShardingRule rule = shardingRule(op);
    std::vector<Axes> axes = rule.known ? factorAxes(op, rule) : std::vector<Axes>();
    std::vector<Value*> operands;
    for (size_t k = 0; k < op.numOperands(); ++k) {
      const Value* v = op.operand(k);
      if (!v->type().isTensor()) {
        operands.push_back(map_.at(v));
        continue;
      }
      const size_t rank = static_cast<size_t>(v->type().rank());
      Sharding need = rule.known ? layoutOf(rank, rule.operandDims[k], axes) : Sharding::replicatedOn(plan_.mesh, rank);
      operands.push_back(resharder.reshard(map_.at(v), v->type(), layout_.at(v), need));
    }
    // A windowed dimension's pieces take their halos from the neighbouring devices.
    Dims haloed;
    for (size_t f = 0; f < axes.size(); ++f) {
      if (rule.factors[f].kind != ShardingRule::Kind::Windowed || axes[f].empty()) continue;
      const auto [before, after] = rule.factors[f].halos(Resharder::pieces(plan_.mesh, axes[f]));
      for (size_t k = 0; k < operands.size(); ++k) {
        const auto& dims = rule.operandDims[k];
        const auto at = std::find(dims.begin(), dims.end(), static_cast<int>(f));
        if (at == dims.end()) continue;
        const int64_t d = at - dims.begin();
        const int padding = rule.paddingOperand[k];
        operands[k] = resharder.exchangeHalos(operands[k], d, axes[f], before, after,
                                              padding < 0 ? nullptr : operands[static_cast<size_t>(padding)]);
        if (k == 0) haloed.push_back(d);
      }
    }
    if (!rule.known) {
      for (const Value* v : op.operands())
        if (v->type().isTensor() && !layout_.at(v).isFullyReplicated()) {
          report_.notes.push_back(where(op) + " has no sharding rule: it runs on whole values");
          break;
        }
    }
    Axes partial;
    for (size_t f = 0; f < axes.size(); ++f)
      if (rule.factors[f].kind == ShardingRule::Kind::Reduction) partial.insert(partial.end(), axes[f].begin(), axes[f].end());
    std::vector<Sharding> produced;
    TypeList types;
    for (size_t k = 0; k < op.numResults(); ++k) {
      const Type& global = op.result(k)->type();
      Sharding s = rule.known ? layoutOf(static_cast<size_t>(global.rank()), rule.resultDims[k], axes)
                              : Sharding::replicatedOn(plan_.mesh, global.isTensor() ? global.rank() : 0);
      s.unreduced = partial;
      types.push_back(global.isTensor() ? localType(global, s) : global);
      produced.push_back(std::move(s));
    }
    TypeList operandTypes;
    for (const Value* v : operands) operandTypes.push_back(v->type());
    std::unique_ptr<Op> copy = Op::create(op.code(), operands, types, withoutShardings(localAttributes(op, operandTypes, haloed)),
                                          regionsOf(op, resharder), op.loc);
    copy->pos = op.pos;
    Op* placed = b.region().push_back(std::move(copy));  // the builder inserts at the end too
    for (size_t k = 0; k < op.numResults(); ++k) {
      const Value* v = op.result(k);
      if (!v->type().isTensor()) {
        map_[v] = placed->result(k);
        continue;
      }
      map_[v] = resharder.reshard(placed->result(k), v->type(), produced[k], plan_.of(v), rule.reducer);
      layout_[v] = plan_.of(v);
    }
  }

  const Function& fn_;
  const ShardingPlan& plan_;
  PartitionReport& report_;
  ValueMap map_;                                       // global value -> its local piece
  std::unordered_map<const Value*, Sharding> layout_;  // how that piece is laid out
};

void checkDivisible(const Function& fn, const ShardingPlan& plan) {
  auto check = [&](const Type& t, const Sharding& s, const std::string& what) {
    for (size_t d = 0; d < s.dims.size(); ++d)
      if (t.shape()[d] % s.shardCount(d) != 0)
        throwUnsupported(what + ": dimension " + std::to_string(d) + " of " + t.str() + " split into " +
                         std::to_string(s.shardCount(d)) + " uneven pieces (padding is not implemented)");
  };
  for (const auto& [v, s] : plan.values) check(v->type(), s, "a value");
  for (size_t i = 0; i < plan.results.size(); ++i)
    if (fn.resultTypes()[i].isTensor()) check(fn.resultTypes()[i], plan.results[i], "result " + std::to_string(i));
}

}  // namespace

PartitionReport partitionModule(Module& module, const std::string& entry, bool gatherResults) {
  PartitionReport report;
  Function* fn = module.lookup(entry);
  if (!fn) throw Error(ErrorKind::Usage, "no function @" + entry + " to partition");
  if (!hasShardings(module, *fn) || findAttr(module.attrs, kPartitionedAttr)) return report;
  ShardingPlan plan = propagateShardings(module, *fn);
  if (gatherResults)
    for (size_t i = 0; i < plan.results.size(); ++i)
      if (fn->resultTypes()[i].isTensor())
        plan.results[i] = Sharding::replicatedOn(plan.mesh, fn->resultTypes()[i].shape().size());
  checkDivisible(*fn, plan);
  report.partitioned = true;
  report.numDevices = plan.numDevices();
  report.notes = plan.notes;
  std::unique_ptr<Function> out = Partitioner(*fn, plan, report).run();
  out->visibility = fn->visibility;
  out->attrs = fn->attrs;
  out->loc = fn->loc;
  out->pos = fn->pos;
  out->argLocs = fn->argLocs;
  out->argAttrs = fn->argAttrs;
  out->resultAttrs = fn->resultAttrs;
  for (size_t i = 0; i < fn->numParams(); ++i) {
    const Sharding s = fn->param(i)->type().isTensor() ? plan.of(fn->param(i)) : Sharding();
    report.params.push_back(s);
    out->argAttrs[i] = withoutShardings(out->argAttrs[i]);
    if (fn->param(i)->type().isTensor())
      setAttr(out->argAttrs[i], std::string(plan.shardy ? kSdyShardingAttr : kHloShardingAttr), plan.attribute(s));
  }
  for (size_t i = 0; i < fn->resultTypes().size(); ++i) {
    report.results.push_back(plan.results[i]);
    out->resultAttrs[i] = withoutShardings(out->resultAttrs[i]);
    if (fn->resultTypes()[i].isTensor())
      setAttr(out->resultAttrs[i], std::string(plan.shardy ? kSdyShardingAttr : kHloShardingAttr),
              plan.attribute(plan.results[i]));
  }
  module.eraseFunction(fn);
  module.addFunction(std::move(out));
  setAttr(module.attrs, "mhlo.num_partitions", Attribute::integer(report.numDevices, DType::I32));
  setAttr(module.attrs, "mhlo.num_replicas", Attribute::integer(1, DType::I32));
  setAttr(module.attrs, std::string(kPartitionedAttr), Attribute::boolean(true));
  return report;
}

}  // namespace kiln::passes
