// Reading shardings from the IR's attributes (see sharding_attrs.h).
#include "ir/sharding_attrs.h"

#include "ir/ops/stablehlo.h"
#include "support/error.h"

namespace kiln {
namespace {

std::vector<size_t> ranksOf(const Type& type) {
  if (type.isTuple()) {
    std::vector<size_t> ranks;
    for (const Type& t : type.elements()) ranks.push_back(t.isTensor() ? static_cast<size_t>(t.rank()) : 0);
    return ranks;
  }
  return {type.isTensor() ? static_cast<size_t>(type.rank()) : 0};
}

void checkRank(const Sharding& s, size_t rank) {
  if (s.kind == Sharding::Kind::Tiled && s.dims.size() != rank)
    throw Error(ErrorKind::Parse, "sdy.sharding has " + std::to_string(s.dims.size()) +
                                      " dimension shardings for a value of rank " + std::to_string(rank));
}

MeshLookup lookupIn(const Module& module) {
  return [&module](std::string_view name) { return module.findMesh(name); };
}

// One value's sharding from an attribute list (a parameter's or a result's).
std::optional<Sharding> valueSharding(const Module& module, const NamedAttrList& attrs, const Type& type) {
  if (Attribute hlo = findAttr(attrs, kHloShardingAttr); hlo.is(Attribute::Kind::String)) {
    std::vector<Sharding> all = parseHloShardings(hlo.asString(), ranksOf(type));
    if (all.size() != 1) throwUnsupported("a tuple sharding of a tuple-typed value");
    return all[0];
  }
  if (Attribute sdy = findAttr(attrs, kSdyShardingAttr); sdy.is(Attribute::Kind::Opaque)) {
    Sharding s = parseSdySharding(sdy.asString(), lookupIn(module));
    checkRank(s, ranksOf(type)[0]);
    return s;
  }
  return std::nullopt;
}

template <typename Fn>
auto locatedAt(const Module& module, SourcePos pos, Fn&& fn) {
  try {
    return fn();
  } catch (Error& e) {
    throw e.at(module.source, pos);
  }
}

}  // namespace

std::optional<Sharding> paramSharding(const Module& module, const Function& fn, size_t i) {
  return locatedAt(module, fn.pos, [&] { return valueSharding(module, fn.argAttrs[i], fn.param(i)->type()); });
}

std::optional<Sharding> resultSharding(const Module& module, const Function& fn, size_t i) {
  return locatedAt(module, fn.pos, [&] { return valueSharding(module, fn.resultAttrs[i], fn.resultTypes()[i]); });
}

std::optional<std::vector<Sharding>> opShardings(const Module& module, const Op& op) {
  return locatedAt(module, op.pos, [&]() -> std::optional<std::vector<Sharding>> {
    std::vector<size_t> ranks;
    for (const Type& t : op.resultTypes()) ranks.push_back(t.isTensor() ? static_cast<size_t>(t.rank()) : 0);
    if (Attribute hlo = op.attr(kHloShardingAttr); hlo.is(Attribute::Kind::String))
      return parseHloShardings(hlo.asString(), ranks);
    if (Attribute sdy = op.attr(kSdyShardingAttr); sdy.is(Attribute::Kind::Opaque)) {
      std::vector<Sharding> all = parseSdyShardingPerValue(sdy.asString(), lookupIn(module));
      if (all.size() != ranks.size())
        throw Error(ErrorKind::Parse, "sdy.sharding gives " + std::to_string(all.size()) + " shardings for " +
                                          std::to_string(ranks.size()) + " results");
      for (size_t i = 0; i < all.size(); ++i) checkRank(all[i], ranks[i]);
      return all;
    }
    return std::nullopt;
  });
}

bool isShardingConstraint(const Op& op) {
  return op.is(ops::Reshape) && op.operand(0)->type() == op.result()->type() &&
         (op.attr(kHloShardingAttr) || op.attr(kSdyShardingAttr)) && !op.attr(kShardMapBoundaryAttr);
}

ShardMapBoundary shardMapBoundary(const Op& op) {
  Attribute target;
  if (op.is(ops::CustomCall)) target = op.attr("call_target_name");
  else if (op.is(ops::Reshape)) target = op.attr(kShardMapBoundaryAttr);
  if (!target.is(Attribute::Kind::String)) return ShardMapBoundary::None;
  if (target.asString() == "SPMDFullToShardShape") return ShardMapBoundary::Entry;
  if (target.asString() == "SPMDShardToFullShape") return ShardMapBoundary::Exit;
  return ShardMapBoundary::None;
}

ShardingMarker shardingMarker(std::string_view target, const Type& from, const Type& to, std::string_view shardingAttr,
                              Attribute sharding) {
  NamedAttrList attrs;
  if (sharding) setAttr(attrs, std::string(shardingAttr), std::move(sharding));
  if (from != to) {  // a shard_map's boundary: only a partitioned program runs it
    setAttr(attrs, "call_target_name", Attribute::string(std::string(target)));
    return {ops::CustomCall, std::move(attrs)};
  }
  if (target != "Sharding") setAttr(attrs, std::string(kShardMapBoundaryAttr), Attribute::string(std::string(target)));
  return {ops::Reshape, std::move(attrs)};
}

void verifyShardings(const Module& module) {
  for (const auto& fn : module.functions()) {
    for (size_t i = 0; i < fn->numParams(); ++i) paramSharding(module, *fn, i);
    for (size_t i = 0; i < fn->resultTypes().size(); ++i) resultSharding(module, *fn, i);
    walk(fn->body(), [&](Op& op) { opShardings(module, op); });
  }
}

}  // namespace kiln
