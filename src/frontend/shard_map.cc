// shard_map, its collectives and pmap (kiln/sharding.h). A shard_map is staged as JAX
// exports one: each argument marked with its sharding (@Sharding) and cut to this
// device's piece (@SPMDFullToShardShape), the function traced on the pieces, each result
// marked manual and put back together (@SPMDShardToFullShape). The partitioner
// (passes/sharding/spmd_partition.h) copies the traced code onto every device as it is.
// The collectives are built by the partitioner's own Resharder, on the shard_map's mesh:
// a psum is a partial sum made whole, an all_gather a split made whole, an axis_index
// the piece of an iota this device holds.
#include "frontend/dispatch.h"
#include "frontend/sharding_spec.h"
#include "frontend/staging.h"
#include "frontend/trace.h"
#include "ir/ops/stablehlo.h"
#include "ir/sharding_attrs.h"
#include "kiln/sharding.h"
#include "kiln/transforms.h"
#include "passes/sharding/resharding.h"

namespace kiln {
namespace detail {
namespace {

// The shard_map being traced on this thread: its mesh, and the resharder its collectives
// are built with (one per shard_map, so their channels differ).
struct ShardMapScope {
  DeviceMesh mesh;
  TraceState* trace = nullptr;
  std::unique_ptr<passes::Resharder> resharder;
};
thread_local ShardMapScope* current = nullptr;

ShardMapScope& scopeFor(const char* collective, const std::string& axis) {
  if (!current || current->trace != currentTrace())
    throw Error(ErrorKind::Usage, std::string(collective) + "(\"" + axis +
                                      "\") outside a shard_map (collectives name the axes of a shard_map's mesh)");
  if (!current->mesh.axisIndex(axis))
    throw Error(ErrorKind::Usage, std::string(collective) + ": the shard_map's mesh has no axis \"" + axis + "\"");
  return *current;
}

DeviceMesh irMesh(const kiln::Mesh& mesh) {
  DeviceMesh m;
  for (const auto& [name, size] : mesh.axes()) m.axes.push_back({name, size});
  return m;
}

// XLA's custom call `target` from `v` to `type`, marked `sharding`, in kiln's form.
Value* boundary(Builder& b, const std::string& target, Value* v, const Type& type, const std::string& sharding) {
  ShardingMarker marker = shardingMarker(target, v->type(), type, kHloShardingAttr, Attribute::string(sharding));
  return b.create1(marker.code, {v}, std::move(marker.attrs), {type});
}

// The global type of a piece `local` laid out as `s`.
Type globalType(const Type& local, const Sharding& s) {
  Shape shape = local.shape();
  for (size_t d = 0; d < shape.size(); ++d) shape[d] *= s.shardCount(d);
  return Type::tensor(local.dtype(), shape);
}

// The out_specs of a shard_map: one per result, or one for every result (pmap's).
struct OutSpecs {
  std::vector<PartitionSpec> each;
  std::optional<PartitionSpec> every;
};

// The body of a shard_map, in the current trace.
std::vector<Array> traceShardMap(const ShardMapFn& f, const kiln::Mesh& mesh, const std::vector<PartitionSpec>& inSpecs,
                                 const OutSpecs& outSpecs, const std::vector<Array>& args) {
  TraceState& trace = *currentTrace();
  Builder& b = *trace.builder;
  std::vector<Array> pieces;
  for (size_t i = 0; i < args.size(); ++i) {
    Value* v = trace.valueOf(args[i]);
    const Sharding s = irSharding(NamedSharding(mesh, inSpecs[i]), mesh, v->type().rank(),
                                  "shard_map in_specs[" + std::to_string(i) + "]");
    const Type local = passes::localType(v->type(), s);
    for (size_t d = 0; d < local.shape().size(); ++d)
      if (v->type().shape()[d] % s.shardCount(d) != 0)
        throw Error(ErrorKind::Usage, "shard_map in_specs[" + std::to_string(i) + "]: dimension " + std::to_string(d) +
                                          " of " + v->type().str() + " does not split into " +
                                          std::to_string(s.shardCount(d)) + " equal pieces");
    Value* marked = boundary(b, "Sharding", v, v->type(), printHloSharding(s));
    pieces.push_back(makeTracer(trace.shared_from_this(), boundary(b, "SPMDFullToShardShape", marked, local, "{manual}")));
  }
  ShardMapScope scope{irMesh(mesh), &trace, nullptr};
  scope.resharder = std::make_unique<passes::Resharder>(b, scope.mesh);
  ShardMapScope* outer = current;
  current = &scope;
  std::vector<Array> results;
  try {
    results = f(pieces);
  } catch (...) {
    current = outer;
    throw;
  }
  current = outer;
  if (!outSpecs.every && results.size() != outSpecs.each.size())
    throw Error(ErrorKind::Usage, "shard_map: the function returned " + std::to_string(results.size()) + " arrays for " +
                                      std::to_string(outSpecs.each.size()) + " out_specs");
  std::vector<Array> outputs;
  for (size_t i = 0; i < results.size(); ++i) {
    Value* v = trace.valueOf(results[i]);
    const PartitionSpec& spec = outSpecs.every ? *outSpecs.every : outSpecs.each[i];
    const Sharding s = irSharding(NamedSharding(mesh, spec), mesh, v->type().rank(),
                                  "shard_map out_specs[" + std::to_string(i) + "]");
    Value* manual = boundary(b, "Sharding", v, v->type(), "{manual}");
    outputs.push_back(makeTracer(trace.shared_from_this(),
                                 boundary(b, "SPMDShardToFullShape", manual, globalType(v->type(), s), printHloSharding(s))));
  }
  return outputs;
}

// shard_map with `outSpecs`: in the current trace, or staged and run on its own.
std::vector<Array> runShardMap(const ShardMapFn& f, const kiln::Mesh& mesh, const std::vector<PartitionSpec>& inSpecs,
                               const OutSpecs& outSpecs, const std::vector<Array>& args) {
  if (inSpecs.size() != args.size())
    throw Error(ErrorKind::Usage, "shard_map: " + std::to_string(inSpecs.size()) + " in_specs for " +
                                      std::to_string(args.size()) + " arguments");
  auto body = [&](const std::vector<Array>& in) { return traceShardMap(f, mesh, inSpecs, outSpecs, in); };
  if (currentTrace()) return body(args);
  // Outside jit: staged on its own and run partitioned, as jit runs it.
  std::shared_ptr<Staged> staged = stage(body, args, "shard_map");
  return run(*staged, args);
}

}  // namespace
}  // namespace detail

std::vector<Array> shard_map(const ShardMapFn& f, const Mesh& mesh, const std::vector<PartitionSpec>& inSpecs,
                             const std::vector<PartitionSpec>& outSpecs, const std::vector<Array>& args) {
  return translated([&] { return detail::runShardMap(f, mesh, inSpecs, {outSpecs, std::nullopt}, args); });
}

Array psum(const Array& x, const std::string& axis, Site site) {
  return translated([&] {
    detail::ShardMapScope& scope = detail::scopeFor("psum", axis);
    return detail::emit1({x}, site, [&](Builder&, const std::vector<Value*>& v) {
      // This device's value is a partial sum over `axis`: made whole, every device's sum.
      Sharding partial = Sharding::replicatedOn(scope.mesh, v[0]->type().rank());
      partial.unreduced = {axis};
      const Sharding whole = Sharding::replicatedOn(scope.mesh, v[0]->type().rank());
      return std::vector<Value*>{scope.resharder->reshard(v[0], v[0]->type(), partial, whole)};
    });
  });
}

Array all_gather(const Array& x, const std::string& axis, int64_t dim, Site site) {
  return translated([&] {
    detail::ShardMapScope& scope = detail::scopeFor("all_gather", axis);
    return detail::emit1({x}, site, [&](Builder&, const std::vector<Value*>& v) {
      const Type& local = v[0]->type();
      if (dim < 0 || dim >= local.rank())
        throw Error(ErrorKind::Usage, "all_gather: dimension " + std::to_string(dim) + " of " + local.str());
      // The pieces along `axis`, concatenated in axis order along `dim`.
      Sharding split = Sharding::replicatedOn(scope.mesh, local.rank());
      split.dims[static_cast<size_t>(dim)] = {axis};
      const Sharding whole = Sharding::replicatedOn(scope.mesh, local.rank());
      return std::vector<Value*>{scope.resharder->reshard(v[0], detail::globalType(local, split), split, whole)};
    });
  });
}

Array ppermute(const Array& x, const std::string& axis, const std::vector<std::pair<int64_t, int64_t>>& perm, Site site) {
  return translated([&] {
    detail::ShardMapScope& scope = detail::scopeFor("ppermute", axis);
    const int64_t size = scope.mesh.axisSize(axis);
    if (perm.empty()) throw Error(ErrorKind::Usage, "ppermute: an empty permutation");
    std::vector<bool> sends(static_cast<size_t>(size)), receives(static_cast<size_t>(size));
    for (const auto& [from, to] : perm) {
      if (from < 0 || from >= size || to < 0 || to >= size)
        throw Error(ErrorKind::Usage, "ppermute: the pair (" + std::to_string(from) + ", " + std::to_string(to) +
                                          ") is not within the " + std::to_string(size) + " devices of axis \"" + axis + "\"");
      if (sends[static_cast<size_t>(from)] || receives[static_cast<size_t>(to)])
        throw Error(ErrorKind::Usage, "ppermute: device " + std::to_string(sends[static_cast<size_t>(from)] ? from : to) +
                                          " of axis \"" + axis + "\" sends or receives twice");
      sends[static_cast<size_t>(from)] = receives[static_cast<size_t>(to)] = true;
    }
    return detail::emit1({x}, site, [&](Builder&, const std::vector<Value*>& v) {
      return std::vector<Value*>{scope.resharder->permute(v[0], {axis}, perm)};
    });
  });
}

Array axis_index(const std::string& axis, Site site) {
  return translated([&] {
    detail::ShardMapScope& scope = detail::scopeFor("axis_index", axis);
    const int64_t size = scope.mesh.axisSize(axis);
    return detail::emit1({}, site, [&](Builder& b, const std::vector<Value*>&) {
      // This device's piece of iota(size) split over `axis`: its one element.
      Value* iota = b.create1(ops::Iota, {}, {{"iota_dimension", Attribute::integer(0)}},
                              {Type::tensor(DType::I32, {size})});
      Sharding split = Sharding::replicatedOn(scope.mesh, 1);
      split.dims[0] = {axis};
      Value* mine = scope.resharder->reshard(iota, iota->type(), Sharding::replicatedOn(scope.mesh, 1), split);
      return std::vector<Value*>{b.create1(ops::Reshape, {mine}, {}, {Type::scalar(DType::I32)})};
    });
  });
}

std::vector<Array> pmap(const ShardMapFn& f, const std::string& axis, const std::vector<Array>& args) {
  return translated([&] {
    if (args.empty()) throw Error(ErrorKind::Usage, "pmap: no arguments to map over");
    const int64_t n = args[0].ndim() > 0 ? args[0].dim(0) : 0;
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].ndim() == 0 || args[i].dim(0) != n)
        throw Error(ErrorKind::Usage, "pmap: argument " + std::to_string(i) + " has no leading dimension of size " +
                                          std::to_string(n) + " (every argument is mapped over its first dimension)");
    const Mesh mesh({{axis, n}});
    // Each device's piece is one slice of the leading dimension, without it.
    auto perDevice = [&](const std::vector<Array>& pieces) {
      std::vector<Array> slices;
      for (const Array& p : pieces) slices.push_back(squeeze(p, {0}));
      std::vector<Array> out;
      for (const Array& r : f(slices)) out.push_back(expand_dims(r, 0));
      return out;
    };
    return detail::runShardMap(perDevice, mesh, std::vector<PartitionSpec>(args.size(), PartitionSpec{{axis}}),
                               {{}, PartitionSpec{{axis}}}, args);
  });
}

}  // namespace kiln
