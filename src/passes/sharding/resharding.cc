// Resharding (see resharding.h).
#include "passes/sharding/resharding.h"

#include <algorithm>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "passes/sharding/sharding_rules.h"
#include "support/error.h"

namespace kiln::passes {

Type localType(const Type& global, const Sharding& s) {
  Shape shape = global.shape();
  for (size_t d = 0; d < shape.size() && d < s.dims.size(); ++d) shape[d] /= s.shardCount(d);
  return Type::tensor(global.dtype(), shape);
}

int64_t Resharder::pieces(const DeviceMesh& mesh, const Axes& axes) {
  int64_t n = 1;
  for (const std::string& a : axes) n *= mesh.axisSize(a);
  return n;
}

void Resharder::record(int CollectiveCounts::*kind, double bytes, const std::string& what) {
  ++(shared_->counts.*kind);
  shared_->counts.bytesSent += bytes;
  shared_->notes.push_back((context_.empty() ? "" : context_ + ": ") + what);
}

double Resharder::ring(const Axes& axes, int64_t bytes) const {
  const double g = static_cast<double>(pieces(axes));
  return (g - 1) / g * static_cast<double>(bytes);
}

std::vector<Dims> Resharder::groups(const Axes& axes) const {
  std::vector<size_t> along;
  for (const std::string& a : axes) along.push_back(*mesh_.axisIndex(a));
  std::vector<Dims> out;
  for (int64_t p = 0; p < mesh_.numDevices(); ++p) {
    bool first = true;  // a group starts at the position whose coordinates along `axes` are 0
    for (size_t a : along) first = first && mesh_.coordinate(p, a) == 0;
    if (!first) continue;
    Dims group;
    for (int64_t k = 0; k < pieces(axes); ++k) {
      // The position of shard k: p plus k's digits (major first) along the axes.
      int64_t position = p, rest = k;
      for (size_t i = along.size(); i-- > 0;) {
        int64_t size = mesh_.axes[along[i]].size, stride = 1;
        for (size_t j = along[i] + 1; j < mesh_.axes.size(); ++j) stride *= mesh_.axes[j].size;
        position += rest % size * stride;
        rest /= size;
      }
      group.push_back(mesh_.device(position));
    }
    out.push_back(std::move(group));
  }
  return out;
}

Value* Resharder::shardIndex(const Axes& axes) {
  if (auto it = indices_.find(axes); it != indices_.end()) return it->second;
  const int64_t n = mesh_.numDevices();
  Literal table(Type::tensor(DType::I64, {n}));
  for (const Dims& group : groups(axes))
    for (size_t k = 0; k < group.size(); ++k) table.setInt(group[k], static_cast<int64_t>(k));
  if (!partition_) partition_ = b_.convert(b_.create1(ops::PartitionId, {}), DType::I64);
  Value* index = b_.reshape(b_.dynamicSlice(b_.constant(std::move(table)), {partition_}, {1}), {});
  return indices_[axes] = index;
}

NamedAttrList Resharder::collectiveAttrs(const Axes& axes, bool globalIds) {
  NamedAttrList attrs{{"replica_groups", replicaGroups(groups(axes))},
                      {"channel_handle", ChannelHandle{shared_->nextChannel++, 1}.toAttr()}};
  if (globalIds) attrs.push_back({"use_global_device_ids", Attribute::unit()});
  return attrs;
}

std::unique_ptr<Region> Resharder::reducerRegion(DType dtype, OpCode reducer) {
  Type e = Type::scalar(dtype);
  return b_.buildRegion({e, e}, [&](Builder& body, const std::vector<Value*>& args) {
    return std::vector<Value*>{body.binary(reducer, args[0], args[1])};
  });
}

Value* Resharder::permute(Value* local, const Axes& axes, const std::vector<std::pair<int64_t, int64_t>>& pairs,
                          const std::string& purpose) {
  std::vector<Dims> rows;
  for (const Dims& group : groups(axes))
    for (const auto& [from, to] : pairs) rows.push_back({group.at(static_cast<size_t>(from)), group.at(static_cast<size_t>(to))});
  record(&CollectiveCounts::collectivePermute, static_cast<double>(local->type().byteSize()),
         "collective_permute of " + local->type().str() + " over " + axesText(axes) +
             (purpose.empty() ? "" : " (" + purpose + ")"));
  return b_.create1(ops::CollectivePermute, {local},
                    {{"source_target_pairs", replicaGroups(rows)},  // (the same table: a row per pair)
                     {"channel_handle", ChannelHandle{shared_->nextChannel++, 1}.toAttr()}});
}

Value* Resharder::exchangeHalos(Value* local, int64_t dim, const Axes& axes, int64_t before, int64_t after,
                                Value* padding) {
  const Shape& shape = local->type().shape();
  const int64_t size = shape[static_cast<size_t>(dim)];
  auto part = [&](int64_t from, int64_t to) {
    Dims start(shape.size(), 0), limit = shape, strides(shape.size(), 1);
    start[static_cast<size_t>(dim)] = from;
    limit[static_cast<size_t>(dim)] = to;
    return b_.slice(local, start, limit, strides);
  };
  const int64_t n = pieces(axes);
  // The first and last devices receive nothing (zeros) from beyond the ends: there the
  // halo is the padding.
  auto orPaddingAt = [&](Value* halo, int64_t end) {
    if (!padding) return halo;
    Value* atEnd = b_.compare(shardIndex(axes), b_.splat(Type::scalar(DType::I64), static_cast<double>(end)),
                              ComparisonDirection::EQ);
    return b_.select(atEnd, b_.broadcastInDim(padding, halo->type().shape(), {}), halo);
  };
  std::vector<std::pair<int64_t, int64_t>> up, down;  // to the next piece, to the previous one
  for (int64_t k = 0; k + 1 < n; ++k) up.push_back({k, k + 1}), down.push_back({k + 1, k});
  std::vector<Value*> parts;
  const std::string along = " along dimension " + std::to_string(dim);
  if (before > 0) parts.push_back(orPaddingAt(permute(part(size - before, size), axes, up, "halo from the previous piece" + along), 0));
  parts.push_back(after < 0 ? part(0, size + after) : local);
  if (after > 0) parts.push_back(orPaddingAt(permute(part(0, after), axes, down, "halo from the next piece" + along), n - 1));
  return parts.size() == 1 ? parts[0] : b_.concatenate(parts, dim);
}

Value* Resharder::reshard(Value* v, const Type& global, const Sharding& from, const Sharding& to, OpCode reducer) {
  Sharding cur = from;
  const size_t rank = cur.dims.size();
  if (!cur.unreduced.empty()) {
    const Axes partial = cur.unreduced;
    std::vector<std::unique_ptr<Region>> body;
    body.push_back(reducerRegion(global.dtype(), reducer));
    size_t d = 0;
    while (d < rank && !(to.dims[d] == partial && cur.dims[d].empty())) ++d;
    if (d < rank) {
      NamedAttrList attrs = collectiveAttrs(partial, true);
      attrs.push_back({"scatter_dimension", Attribute::integer(static_cast<int64_t>(d))});
      cur.dims[d] = partial;
      record(&CollectiveCounts::reduceScatter, ring(partial, v->type().byteSize()),
             "reduce_scatter of partial sums of " + global.str() + " over " + axesText(partial) + " into dimension " +
                 std::to_string(d));
      v = b_.create(ops::ReduceScatter, {v}, std::move(attrs), std::move(body), {localType(global, cur)})->result();
    } else {
      record(&CollectiveCounts::allReduce, 2 * ring(partial, v->type().byteSize()),
             "all_reduce of partial sums of " + global.str() + " over " + axesText(partial));
      v = b_.create(ops::AllReduce, {v}, collectiveAttrs(partial, true), std::move(body))->result();
    }
    cur.unreduced.clear();
  }
  // A split moving from dimension i to a whole dimension j: one all_to_all.
  for (size_t i = 0; i < rank; ++i) {
    if (cur.dims[i].empty() || cur.dims[i] == to.dims[i]) continue;
    for (size_t j = 0; j < rank; ++j) {
      if (j == i || to.dims[j] != cur.dims[i] || !cur.dims[j].empty()) continue;
      const Axes axes = cur.dims[i];
      NamedAttrList attrs = collectiveAttrs(axes, false);
      attrs.push_back({"split_dimension", Attribute::integer(static_cast<int64_t>(j))});
      attrs.push_back({"concat_dimension", Attribute::integer(static_cast<int64_t>(i))});
      attrs.push_back({"split_count", Attribute::integer(pieces(axes))});
      cur.dims[j] = axes;
      cur.dims[i].clear();
      record(&CollectiveCounts::allToAll, ring(axes, v->type().byteSize()),
             "all_to_all of " + global.str() + ": the split over " + axesText(axes) + " moves from dimension " +
                 std::to_string(i) + " to " + std::to_string(j));
      v = b_.create1(ops::AllToAll, {v}, std::move(attrs), {localType(global, cur)});
      break;
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (cur.dims[d].empty() || cur.dims[d] == to.dims[d]) continue;
    NamedAttrList attrs = collectiveAttrs(cur.dims[d], true);
    attrs.push_back({"all_gather_dim", Attribute::integer(static_cast<int64_t>(d))});
    record(&CollectiveCounts::allGather, ring(cur.dims[d], v->type().byteSize() * pieces(cur.dims[d])),
           "all_gather of " + global.str() + " along dimension " + std::to_string(d) + " over " + axesText(cur.dims[d]) +
               (to.dims[d].empty() ? " (needed whole)" : " (split differently)"));
    cur.dims[d].clear();
    v = b_.create1(ops::AllGather, {v}, std::move(attrs), {localType(global, cur)});
  }
  bool slice = false;
  for (size_t d = 0; d < rank; ++d) slice = slice || (cur.dims[d] != to.dims[d]);
  if (slice) {
    std::vector<Value*> starts;
    const Type piece = localType(global, to);
    for (size_t d = 0; d < rank; ++d) {
      Value* zero = b_.splat(Type::scalar(DType::I64), 0);
      if (to.dims[d].empty()) {
        starts.push_back(zero);
        continue;
      }
      Value* size = b_.splat(Type::scalar(DType::I64), static_cast<double>(piece.shape()[d]));
      starts.push_back(b_.binary(ops::Multiply, shardIndex(to.dims[d]), size));
    }
    v = b_.dynamicSlice(v, starts, piece.shape());
    ++shared_->counts.localSlices;
  }
  return v;
}

}  // namespace kiln::passes
