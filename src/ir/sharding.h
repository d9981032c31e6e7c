// Shardings: how an array is laid out over a mesh of devices. One model serves both
// forms programs arrive in — GSPMD's `mhlo.sharding` strings ({devices=[2,1]<=[2]}) and
// Shardy's `#sdy.sharding<@mesh, [{"x"}, {}]>` attributes over `sdy.mesh` symbols — in
// Shardy's terms, because named mesh axes are what propagation and partitioning reason
// about: a tiled GSPMD sharding is a mesh with one axis per tile dimension (or per factor
// of its iota device order), each array dimension split by the axes of its tile
// dimension. Programs keep the attribute text they were written with; this model is what
// the sharding passes read and what they print new shardings from, in the input's form.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

struct MeshAxis {
  std::string name;
  int64_t size = 1;
  bool operator==(const MeshAxis&) const = default;
};

// Devices arranged as an n-d array with named axes (row-major, first axis major).
struct DeviceMesh {
  std::vector<MeshAxis> axes;
  std::vector<int64_t> deviceIds;  // the device at each mesh position; empty: 0, 1, 2, ...

  int64_t numDevices() const;
  int64_t device(int64_t position) const;
  std::optional<size_t> axisIndex(std::string_view name) const;
  int64_t axisSize(std::string_view name) const;  // 1 for an axis the mesh lacks
  // The coordinate along `axis` (an index into axes) of mesh position `position`.
  int64_t coordinate(int64_t position, size_t axis) const;
  bool operator==(const DeviceMesh&) const = default;
};

struct Sharding {
  enum class Kind : uint8_t {
    Tiled,    // split (or replicated) over the mesh as `dims` say
    Maximal,  // the whole array on one device
    Manual,   // every device holds its own value (inside shard_map); no global view
  };
  Kind kind = Kind::Tiled;
  int64_t device = 0;       // Maximal: which device
  std::string meshName;     // Shardy's mesh symbol; empty for a GSPMD sharding's own mesh
  DeviceMesh mesh;
  // Per array dimension, the mesh axes that split it, major first. A mesh axis used by no
  // dimension replicates the array along it (unless listed in `unreduced`).
  std::vector<std::vector<std::string>> dims;
  // Shardy's open dimensions (`{"x", ?}`): propagation may split them further.
  std::vector<bool> open;
  std::vector<std::string> replicated;  // axes named as replicated (Shardy's replicated={...})
  std::vector<std::string> unreduced;   // axes over which each device holds a partial sum
  std::vector<std::string> manualAxes;  // GSPMD's last_tile_dims={manual}: per-device along these

  static Sharding replicatedOn(DeviceMesh mesh, size_t rank);
  static Sharding maximal(int64_t device);

  bool isFullyReplicated() const;  // Tiled, no dimension split, nothing unreduced or manual
  // How many pieces dimension `d` is cut into (the product of its axes' sizes).
  int64_t shardCount(size_t d) const;
  // The axes splitting no dimension, in mesh order (the ones the array is copied along).
  std::vector<std::string> unusedAxes() const;
  bool operator==(const Sharding&) const = default;
};

// One mesh all of `meshes` fit on, or nullopt: the meshes themselves when they are all
// equal (axis names too); otherwise, for meshes of one device count in iota order, the
// coarsest mesh whose axes split each given axis into a run of its own (a 4-device axis
// and a 2x2 mesh give a 2x2 mesh). Meshes with no axes fit any.
std::optional<DeviceMesh> commonMesh(const std::vector<const DeviceMesh*>& meshes);
// `s` over `mesh` (one commonMesh gave for s.mesh): each axis of s.mesh becomes the run of
// `mesh`'s axes that covers it.
Sharding onMesh(const Sharding& s, const DeviceMesh& mesh);

// ---- GSPMD's text: the value of an `mhlo.sharding` attribute -------------------------
// Parses "{replicated}", "{maximal device=3}", "{manual}", "{devices=[2,1]0,1}",
// "{devices=[2,2]<=[2,2]T(1,0)}", "... last_tile_dim_replicate", "last_tile_dims={manual}",
// and the tuple form "{{replicated}, {devices=[2]<=[2]}}" (one sharding per element).
// `rank` is the array's rank (the tile dimensions beyond it are replication/manual ones);
// for a tuple, one rank per element. Malformed text throws a Parse error naming what is
// wrong; metadata={...} is skipped.
Sharding parseHloSharding(std::string_view text, size_t rank);
std::vector<Sharding> parseHloShardings(std::string_view text, const std::vector<size_t>& ranks);
// GSPMD's view of a sharding: the tile assignment XLA's OpSharding holds. Unreduced axes
// have no GSPMD form: unsupported.
struct HloTiles {
  enum class Kind : uint8_t { Replicated, Maximal, Manual, Tiled };
  Kind kind = Kind::Replicated;
  int64_t device = 0;  // Maximal
  // Tiled: the tile assignment's dimensions (one per array dimension, then one for the
  // replicated axes when lastReplicated, then one for the manual axes when lastManual)
  // and the device of each tile, row-major.
  std::vector<int64_t> tile, devices;
  bool lastReplicated = false, lastManual = false;
  // When the mesh numbers its devices in order: `devices` is the iota over iotaSizes,
  // transposed by iotaOrder (merged where possible).
  bool iota = false;
  std::vector<int64_t> iotaSizes, iotaOrder;
};
HloTiles hloTilesOf(const Sharding& sharding);
// The canonical GSPMD text (iota device orders as <=[...]T(...)).
std::string printHloSharding(const Sharding& sharding);

// ---- Shardy's text -------------------------------------------------------------------
// A mesh: `<["x"=2, "y"=4]>`, `<["x"=2], device_ids=[1,0]>`, `<[], device_ids=[3]>` (a
// maximal mesh), with or without the leading `#sdy.mesh`.
DeviceMesh parseSdyMesh(std::string_view text);
std::string printSdyMesh(const DeviceMesh& mesh);  // `<["x"=2, "y"=4]>`
// A sharding `#sdy.sharding<@mesh, [{"x"}, {"y", ?}, {}], replicated={"z"}>` (or with an
// inline `mesh<...>`); `lookupMesh` resolves @names and returns null for an unknown one.
using MeshLookup = std::function<const DeviceMesh*(std::string_view name)>;
Sharding parseSdySharding(std::string_view text, const MeshLookup& lookupMesh);
// `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`: an op's result shardings.
std::vector<Sharding> parseSdyShardingPerValue(std::string_view text, const MeshLookup& lookupMesh);
// `#sdy.sharding<@meshName, [...]>` (meshName must be set, or the mesh is printed inline).
std::string printSdySharding(const Sharding& sharding);

}  // namespace kiln
