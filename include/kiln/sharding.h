// Meshes and shardings for jit, as jax.sharding spells them:
//
//   kiln::Mesh mesh({{"x", 2}});                                  // 2 devices
//   auto step = kiln::jit(f, {.inShardings = {kiln::NamedSharding(mesh, {{"x"}, {}})},
//                             .outShardings = {kiln::NamedSharding(mesh, {})}});
//
// The jitted program is partitioned by these shardings (and what propagates from them)
// and runs on the mesh's devices of the frontend's plugin, each argument split into the
// pieces its sharding says (or passed as its pieces, when it is a sharded array already
// split that way); its results are sharded arrays, whose pieces stay on the devices.
//
// Started by mpirun (`mpirun -np N program`), a program is one of N processes with one
// device each (jax.distributed, with MPI as the launcher): a mesh of N devices spans the
// processes, each process passes the same whole arguments and keeps its own pieces, the
// collectives travel as MPI messages, and every process gets the whole results.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/numpy.h"

namespace kiln {

// Devices arranged as an n-d array with named axes; devices 0, 1, ... in row-major order.
class Mesh {
 public:
  Mesh() = default;
  explicit Mesh(std::vector<std::pair<std::string, int64_t>> axes) : axes_(std::move(axes)) {}
  const std::vector<std::pair<std::string, int64_t>>& axes() const { return axes_; }
  int64_t size() const {
    int64_t n = 1;
    for (const auto& a : axes_) n *= a.second;
    return n;
  }

 private:
  std::vector<std::pair<std::string, int64_t>> axes_;
};

// Per array dimension, the mesh axes that split it ({} keeps it whole); dimensions past
// the end are whole (JAX's PartitionSpec('x', None) is {{"x"}, {}}).
using PartitionSpec = std::vector<std::vector<std::string>>;

struct NamedSharding {
  NamedSharding() = default;
  NamedSharding(Mesh mesh, PartitionSpec spec) : mesh(std::move(mesh)), spec(std::move(spec)) {}
  Mesh mesh;
  PartitionSpec spec;
};

// Inside jit: `x`, with the sharding the program must give it there (a Shardy
// sharding_constraint; propagation starts from it as from the in/out shardings, and jit
// partitions a program that has one even without in/out shardings). Outside jit: `x`
// (arrays live on one device). The mesh must be the program's one mesh.
Array with_sharding_constraint(const Array& x, const NamedSharding& sharding, Site site = Site::current());

// `x` split into the pieces `sharding` gives each of the mesh's devices, which keep them
// (jax.device_put): a sharded array. jit passes a sharded argument whose pieces are the
// ones its parameter needs as it is, and returns its results sharded (their pieces stay
// on the devices), so a training loop's state never goes through the host; anything
// else that reads a sharded array assembles it first. Inside jit: a sharding
// constraint. Under mpirun: `x` (each process holds whole arrays).
Array device_put(const Array& x, const NamedSharding& sharding, Site site = Site::current());
// The sharding of a sharded array (nullopt for one on the session's device), and its
// pieces in device order (copies on the session's device; one piece, `x`, when unsharded).
std::optional<NamedSharding> sharding_of(const Array& x);
std::vector<Array> addressable_shards(const Array& x);

// jax.shard_map: `f` runs on each device's pieces of `args` (split as `inSpecs` say, one
// PartitionSpec per argument) and returns each device's pieces of the results (put
// together as `outSpecs` say; a dimension no axis splits must come out the same on
// every device). Inside `f`, psum / all_gather / ppermute / axis_index name the mesh's
// axes. Works
// inside jit and outside it (then staged and partitioned on its own).
using ShardMapFn = std::function<std::vector<Array>(const std::vector<Array>&)>;
std::vector<Array> shard_map(const ShardMapFn& f, const Mesh& mesh, const std::vector<PartitionSpec>& inSpecs,
                             const std::vector<PartitionSpec>& outSpecs, const std::vector<Array>& args);
// Collectives inside a shard_map's function, over the devices along mesh axis `axis`:
// the sum of their values (jax.lax.psum), their pieces concatenated along `dim` in axis
// order (jax.lax.all_gather with tiled=True), and this device's index along it (an i32).
Array psum(const Array& x, const std::string& axis, Site site = Site::current());
Array all_gather(const Array& x, const std::string& axis, int64_t dim, Site site = Site::current());
Array axis_index(const std::string& axis, Site site = Site::current());
// Each device's `x` sent to another along `axis` (jax.lax.ppermute): for each (from, to)
// of `perm` (indices along the axis), the device at `from` sends to the one at `to`; a
// device nothing is sent to gets zeros.
Array ppermute(const Array& x, const std::string& axis, const std::vector<std::pair<int64_t, int64_t>>& perm,
               Site site = Site::current());

// jax.pmap as JAX now builds it, on shard_map: `f` runs once per slice of the arguments'
// leading dimension (all the same size n, one device each of a mesh {axis: n}), on the
// slice without that dimension; the results are stacked the same way. Collectives in `f`
// name `axis`.
std::vector<Array> pmap(const ShardMapFn& f, const std::string& axis, const std::vector<Array>& args);

// This process's index among the processes of the job (its MPI rank; 0 outside mpirun),
// and their number (jax.process_index(), jax.process_count()).
int processIndex();
int processCount();

}  // namespace kiln
