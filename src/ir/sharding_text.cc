// The text forms of shardings (see sharding.h): GSPMD's `mhlo.sharding` strings and
// Shardy's `#sdy.mesh` / `#sdy.sharding` attributes, read into and printed from one model.
#include <numeric>

#include "ir/sharding.h"
#include "support/error.h"

namespace kiln {
namespace {

// A cursor over one attribute's text; errors quote the text and the column.
class Scanner {
 public:
  Scanner(std::string_view text, std::string_view what) : s_(text), what_(what) {}

  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  bool atEnd() { skipSpace(); return i_ == s_.size(); }
  char peek() { skipSpace(); return i_ < s_.size() ? s_[i_] : '\0'; }
  bool eat(std::string_view token) {
    skipSpace();
    if (s_.substr(i_, token.size()) != token) return false;
    i_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!eat(token)) fail("expected '" + std::string(token) + "'");
  }
  std::string_view word() {
    skipSpace();
    size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
    return s_.substr(start, i_ - start);
  }
  int64_t integer() {
    skipSpace();
    size_t start = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (start == i_ || i_ - start > 15) fail("expected a number");
    return std::stoll(std::string(s_.substr(start, i_ - start)));
  }
  std::vector<int64_t> integers(char close) {  // `a, b, c` up to (not through) `close`
    std::vector<int64_t> out;
    if (peek() == close) return out;
    do out.push_back(integer()); while (eat(","));
    return out;
  }
  std::string quoted() {
    expect("\"");
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != '"') ++i_;
    if (i_ == s_.size()) fail("unterminated string");
    return std::string(s_.substr(start, i_++ - start));
  }
  // Skips a balanced {...} (metadata the model does not keep).
  void skipBraces() {
    expect("{");
    for (int depth = 1; depth > 0; ++i_) {
      if (i_ == s_.size()) fail("unbalanced braces");
      if (s_[i_] == '"') { ++i_; while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1; }
      else if (s_[i_] == '{') ++depth;
      else if (s_[i_] == '}') --depth;
    }
  }
  [[noreturn]] void fail(const std::string& message) {
    throw Error(ErrorKind::Parse, "bad " + std::string(what_) + " '" + std::string(s_) + "': " + message +
                                      " at column " + std::to_string(i_ + 1));
  }

 private:
  std::string_view s_;
  std::string_view what_;
  size_t i_ = 0;
};

int64_t product(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

std::string axisName(size_t i) { return "_axis_" + std::to_string(i); }

// iota(product(dims)) reshaped to `dims`, transposed by `perm`, flattened.
std::vector<int64_t> iotaTransposed(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  std::vector<int64_t> out, index(dims.size(), 0);
  for (int64_t n = product(dims), k = 0; k < n; ++k) {
    int64_t id = 0;
    for (size_t j = 0; j < perm.size(); ++j) id += index[j] * strides[perm[j]];
    out.push_back(id);
    for (size_t j = perm.size(); j-- > 0;) {  // next index of the transposed array
      if (++index[j] < dims[perm[j]]) break;
      index[j] = 0;
    }
  }
  return out;
}

bool isIota(const std::vector<int64_t>& ids) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// A tiled GSPMD sharding. An iota device order whose transposed dimensions group into
// the tile dimensions becomes a mesh with one axis per reshape dimension (so printing
// gives the same compact form back); any other order, one axis per tile dimension with
// the devices listed.
Sharding tiledSharding(Scanner& in, size_t rank, const std::vector<int64_t>& tile, std::vector<int64_t> devices,
                       std::vector<int64_t> reshape, std::vector<int64_t> perm,
                       const std::vector<std::string>& trailing) {
  if (tile.size() != rank + trailing.size())
    in.fail(std::to_string(tile.size()) + " tile dimensions for an array of rank " + std::to_string(rank) +
            (trailing.empty() ? "" : " and " + std::to_string(trailing.size()) + " subgroup dimensions"));
  Sharding s;
  s.dims.resize(tile.size());
  if (!reshape.empty()) {
    // Drop size-1 reshape dimensions; then group the transposed ones into tile dimensions.
    std::vector<int64_t> keep, newIndex(reshape.size(), -1);
    for (size_t i = 0; i < reshape.size(); ++i)
      if (reshape[i] > 1) newIndex[i] = static_cast<int64_t>(keep.size()), keep.push_back(reshape[i]);
    std::vector<int64_t> order;
    for (int64_t p : perm)
      if (newIndex[p] >= 0) order.push_back(newIndex[p]);
    size_t k = 0;
    bool aligned = true;
    for (size_t t = 0; t < tile.size() && aligned; ++t) {
      int64_t covered = 1;
      while (covered < tile[t] && k < order.size()) {
        covered *= keep[order[k]];
        s.dims[t].push_back(axisName(order[k++]));
      }
      aligned = covered == tile[t];
    }
    if (aligned && k == order.size()) {
      for (size_t i = 0; i < keep.size(); ++i) s.mesh.axes.push_back({axisName(i), keep[i]});
    } else {
      devices = iotaTransposed(reshape, perm);
      s.dims.assign(tile.size(), {});
    }
  }
  if (s.mesh.axes.empty()) {
    for (size_t t = 0; t < tile.size(); ++t) {
      if (tile[t] == 1) continue;
      s.mesh.axes.push_back({axisName(s.mesh.axes.size()), tile[t]});
      s.dims[t] = {s.mesh.axes.back().name};
    }
    if (!isIota(devices)) s.mesh.deviceIds = devices;
  }
  for (size_t j = 0; j < trailing.size(); ++j) {
    std::vector<std::string>& axes = s.dims[rank + j];
    if (trailing[j] == "manual") s.manualAxes.insert(s.manualAxes.end(), axes.begin(), axes.end());
    else if (trailing[j] != "replicated") in.fail("unknown subgroup type '" + trailing[j] + "'");
  }
  s.dims.resize(rank);
  s.open.assign(rank, false);
  return s;
}

Sharding parseOneHlo(Scanner& in, size_t rank) {
  in.expect("{");
  Sharding s = Sharding::replicatedOn({}, rank);
  std::string_view kind = in.word();
  if (kind == "maximal") {
    in.expect("device=");
    s = Sharding::maximal(in.integer());
  } else if (kind == "manual") {
    s.kind = Sharding::Kind::Manual;
  } else if (kind == "unknown") {
    s.open.assign(rank, true);  // propagation decides
  } else if (kind == "devices") {
    in.expect("=[");
    std::vector<int64_t> tile = in.integers(']');
    in.expect("]");
    std::vector<int64_t> devices, reshape, perm;
    if (in.eat("<=[")) {
      reshape = in.integers(']');
      in.expect("]");
      if (in.eat("T(")) {
        perm = in.integers(')');
        in.expect(")");
      } else {
        perm.resize(reshape.size());
        std::iota(perm.begin(), perm.end(), 0);
      }
      std::vector<int64_t> sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      if (perm.size() != reshape.size() || !isIota(sorted)) in.fail("T(...) is not a permutation of the iota dimensions");
      if (product(reshape) != product(tile)) in.fail("the iota has " + std::to_string(product(reshape)) +
                                                     " devices, the tiles " + std::to_string(product(tile)));
    } else {
      devices = in.integers('}');
      if (static_cast<int64_t>(devices.size()) != product(tile))
        in.fail(std::to_string(devices.size()) + " devices for " + std::to_string(product(tile)) + " tiles");
    }
    for (int64_t t : tile)
      if (t < 1) in.fail("a tile dimension below 1");
    std::vector<std::string> trailing;
    while (true) {
      if (in.eat("last_tile_dim_replicate")) {
        trailing.push_back("replicated");
      } else if (in.eat("last_tile_dims={")) {
        do trailing.emplace_back(in.word()); while (in.eat(","));
        in.expect("}");
      } else {
        break;
      }
    }
    s = tiledSharding(in, rank, tile, std::move(devices), std::move(reshape), std::move(perm), trailing);
  } else if (kind != "replicated") {
    in.fail("unknown sharding kind '" + std::string(kind) + "'");
  }
  while (!in.atEnd() && in.peek() != '}') {  // annotations the model does not keep
    std::string_view key = in.word();
    if (key.empty()) in.fail("unexpected text");
    in.expect("=");
    if (in.peek() == '{') in.skipBraces();
    else in.integer();  // shard_as / shard_like N
  }
  in.expect("}");
  return s;
}

// Merges the axes of an iota mesh that stay adjacent under `perm` and drops size-1 ones:
// the canonical `<=[dims]T(perm)` GSPMD prints.
void canonicalIota(std::vector<int64_t>& dims, std::vector<int64_t>& perm) {
  std::vector<std::vector<int64_t>> runs;
  for (int64_t p : perm) {
    if (dims[p] == 1) continue;
    if (!runs.empty() && runs.back().back() + 1 == p) runs.back().push_back(p);
    else runs.push_back({p});
  }
  std::vector<std::vector<int64_t>> bySource = runs;
  std::sort(bySource.begin(), bySource.end());
  std::vector<int64_t> newDims, newPerm;
  for (const auto& run : bySource) {
    int64_t size = 1;
    for (int64_t p : run) size *= dims[p];
    newDims.push_back(size);
  }
  for (const auto& run : runs)
    newPerm.push_back(std::find(bySource.begin(), bySource.end(), run) - bySource.begin());
  dims = std::move(newDims);
  perm = std::move(newPerm);
}

std::string joinInts(const std::vector<int64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out;
}

std::vector<std::string> parseAxisList(Scanner& in) {  // {"x", "y"}
  std::vector<std::string> axes;
  in.expect("{");
  if (in.peek() != '}') {
    do axes.push_back(in.quoted()); while (in.eat(","));
  }
  in.expect("}");
  return axes;
}

DeviceMesh parseMeshBody(Scanner& in) {  // after '<': [axes] (, device_ids=[...])? >
  DeviceMesh mesh;
  in.expect("[");
  if (in.peek() != ']') {
    do {
      std::string name = in.quoted();
      in.expect("=");
      int64_t size = in.integer();
      if (size < 1) in.fail("axis \"" + name + "\" of size 0");
      if (mesh.axisIndex(name)) in.fail("axis \"" + name + "\" twice");
      mesh.axes.push_back({std::move(name), size});
    } while (in.eat(","));
  }
  in.expect("]");
  if (in.eat(",")) {
    in.expect("device_ids=[");
    mesh.deviceIds = in.integers(']');
    in.expect("]");
    if (static_cast<int64_t>(mesh.deviceIds.size()) != mesh.numDevices())
      in.fail(std::to_string(mesh.deviceIds.size()) + " device ids for a mesh of " +
              std::to_string(mesh.numDevices()) + " devices");
    if (isIota(mesh.deviceIds) && !mesh.axes.empty()) mesh.deviceIds.clear();
  }
  in.expect(">");
  return mesh;
}

// After '<': `@mesh, [dims], replicated={...}, unreduced={...}>`.
Sharding parseSdyBody(Scanner& in, const MeshLookup& lookupMesh) {
  Sharding s;
  if (in.eat("@")) {
    s.meshName = std::string(in.word());
    const DeviceMesh* mesh = lookupMesh ? lookupMesh(s.meshName) : nullptr;
    if (!mesh) in.fail("unknown mesh @" + s.meshName);
    s.mesh = *mesh;
  } else {
    in.expect("mesh<");
    s.mesh = parseMeshBody(in);
  }
  auto checkAxis = [&](const std::string& axis) {
    if (axis.empty() || axis.find(':') != std::string::npos) throwUnsupported("sub-axis shardings (\"" + axis + "\")");
    if (!s.mesh.axisIndex(axis)) in.fail("the mesh has no axis \"" + axis + "\"");
  };
  in.expect(",");
  in.expect("[");
  while (in.peek() != ']') {
    in.expect("{");
    std::vector<std::string> axes;
    bool open = false;
    while (in.peek() != '}') {
      if (in.eat("?")) {
        open = true;
        break;
      }
      axes.push_back(in.quoted());
      if (in.peek() == ':') throwUnsupported("sub-axis shardings (\"" + axes.back() + "\":...)");
      checkAxis(axes.back());
      if (!in.eat(",")) break;
    }
    in.expect("}");
    if (in.eat("p")) in.integer();  // a propagation priority
    s.dims.push_back(std::move(axes));
    s.open.push_back(open);
    if (!in.eat(",")) break;
  }
  in.expect("]");
  while (in.eat(",")) {
    std::string_view key = in.word();
    in.expect("=");
    std::vector<std::string> axes = parseAxisList(in);
    for (const std::string& a : axes) checkAxis(a);
    if (key == "replicated") s.replicated = std::move(axes);
    else if (key == "unreduced") s.unreduced = std::move(axes);
    else in.fail("unknown field '" + std::string(key) + "'");
  }
  in.expect(">");
  if (s.mesh.axes.empty() && s.mesh.deviceIds.size() == 1) return Sharding::maximal(s.mesh.deviceIds[0]);
  return s;
}

std::string quotedAxes(const std::vector<std::string>& axes, bool open = false) {
  std::string out = "{";
  for (size_t i = 0; i < axes.size(); ++i) out += (i ? ", \"" : "\"") + axes[i] + "\"";
  if (open) out += axes.empty() ? "?" : ", ?";
  return out + "}";
}

}  // namespace

std::vector<Sharding> parseHloShardings(std::string_view text, const std::vector<size_t>& ranks) {
  Scanner in(text, "mhlo.sharding");
  std::vector<Sharding> out;
  if (in.eat("{") && in.peek() == '{') {
    while (in.peek() == '{') {
      if (out.size() == ranks.size()) in.fail("more tuple elements than the value has (" + std::to_string(ranks.size()) + ")");
      out.push_back(parseOneHlo(in, ranks[out.size()]));
      if (!in.eat(",")) break;
    }
    in.expect("}");
    if (out.size() != ranks.size())
      in.fail(std::to_string(out.size()) + " tuple elements for " + std::to_string(ranks.size()) + " values");
  } else {
    Scanner whole(text, "mhlo.sharding");
    Sharding one = parseOneHlo(whole, ranks.empty() ? 0 : ranks[0]);
    if (!whole.atEnd()) whole.fail("text after the sharding");
    out.assign(std::max<size_t>(ranks.size(), 1), one);  // one sharding for every element
    for (size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i] != ranks[0] && one.kind == Sharding::Kind::Tiled && !one.isFullyReplicated())
        in.fail("one tiled sharding for values of different ranks");
    for (size_t i = 0; i < out.size() && !ranks.empty(); ++i) {
      out[i].dims.resize(ranks[i]);
      out[i].open.resize(ranks[i], one.open.empty() ? false : one.open[0]);
    }
    return out;
  }
  if (!in.atEnd()) in.fail("text after the sharding");
  return out;
}

Sharding parseHloSharding(std::string_view text, size_t rank) { return parseHloShardings(text, {rank})[0]; }

HloTiles hloTilesOf(const Sharding& s) {
  HloTiles t;
  switch (s.kind) {
    case Sharding::Kind::Maximal: t.kind = HloTiles::Kind::Maximal; t.device = s.device; return t;
    case Sharding::Kind::Manual: t.kind = HloTiles::Kind::Manual; return t;
    case Sharding::Kind::Tiled: break;
  }
  if (!s.unreduced.empty()) throwUnsupported("a GSPMD sharding of partial sums (unreduced axes)");
  // The mesh axes in tile order: each dimension's, then the replicated ones, then manual.
  std::vector<int64_t> order;
  auto take = [&](const std::vector<std::string>& axes) {
    int64_t size = 1;
    for (const std::string& a : axes) {
      order.push_back(static_cast<int64_t>(*s.mesh.axisIndex(a)));
      size *= s.mesh.axisSize(a);
    }
    return size;
  };
  bool split = false;
  for (const auto& axes : s.dims) {
    t.tile.push_back(take(axes));
    split = split || t.tile.back() > 1;
  }
  if (!split && s.manualAxes.empty()) return HloTiles{};  // replicated
  t.kind = HloTiles::Kind::Tiled;
  std::vector<std::string> unused;
  for (const std::string& a : s.unusedAxes())
    if (s.mesh.axisSize(a) > 1) unused.push_back(a);
  if (!unused.empty()) {
    t.tile.push_back(take(unused));
    t.lastReplicated = true;
  }
  if (!s.manualAxes.empty()) {
    t.tile.push_back(take(s.manualAxes));
    t.lastManual = true;
  }
  std::vector<int64_t> sizes;
  for (const MeshAxis& a : s.mesh.axes) sizes.push_back(a.size);
  for (size_t i = 0; i < sizes.size(); ++i)  // axes used nowhere have size 1; keep perm whole
    if (std::find(order.begin(), order.end(), static_cast<int64_t>(i)) == order.end()) order.push_back(static_cast<int64_t>(i));
  t.iota = s.mesh.deviceIds.empty();
  if (t.iota) canonicalIota(sizes, order);
  for (int64_t position : iotaTransposed(sizes, order)) t.devices.push_back(s.mesh.device(position));
  t.iotaSizes = std::move(sizes);
  t.iotaOrder = std::move(order);
  return t;
}

std::string printHloSharding(const Sharding& s) {
  const HloTiles t = hloTilesOf(s);
  switch (t.kind) {
    case HloTiles::Kind::Replicated: return "{replicated}";
    case HloTiles::Kind::Maximal: return "{maximal device=" + std::to_string(t.device) + "}";
    case HloTiles::Kind::Manual: return "{manual}";
    case HloTiles::Kind::Tiled: break;
  }
  std::string out = "{devices=[" + joinInts(t.tile) + "]";
  if (!t.iota) {
    out += joinInts(t.devices);
  } else {
    std::vector<int64_t> identity(t.iotaOrder.size());
    std::iota(identity.begin(), identity.end(), 0);
    if (t.iotaOrder == identity) out += "<=[" + std::to_string(product(t.iotaSizes)) + "]";
    else out += "<=[" + joinInts(t.iotaSizes) + "]T(" + joinInts(t.iotaOrder) + ")";
  }
  if (t.lastReplicated) out += t.lastManual ? " last_tile_dims={replicated, manual}" : " last_tile_dim_replicate";
  else if (t.lastManual) out += " last_tile_dims={manual}";
  return out + "}";
}

DeviceMesh parseSdyMesh(std::string_view text) {
  Scanner in(text, "sdy.mesh");
  in.eat("#sdy.mesh");
  in.expect("<");
  DeviceMesh mesh = parseMeshBody(in);
  if (!in.atEnd()) in.fail("text after the mesh");
  return mesh;
}

std::string printSdyMesh(const DeviceMesh& mesh) {
  std::string out = "<[";
  for (size_t i = 0; i < mesh.axes.size(); ++i)
    out += (i ? ", \"" : "\"") + mesh.axes[i].name + "\"=" + std::to_string(mesh.axes[i].size);
  out += "]";
  if (!mesh.deviceIds.empty()) out += ", device_ids=[" + joinInts(mesh.deviceIds) + "]";
  return out + ">";
}

Sharding parseSdySharding(std::string_view text, const MeshLookup& lookupMesh) {
  Scanner in(text, "sdy.sharding");
  in.eat("#sdy.sharding");
  in.expect("<");
  Sharding s = parseSdyBody(in, lookupMesh);
  if (!in.atEnd()) in.fail("text after the sharding");
  return s;
}

std::vector<Sharding> parseSdyShardingPerValue(std::string_view text, const MeshLookup& lookupMesh) {
  Scanner in(text, "sdy.sharding_per_value");
  in.eat("#sdy.sharding_per_value");
  in.expect("<");
  in.expect("[");
  std::vector<Sharding> out;
  while (in.eat("<")) {
    out.push_back(parseSdyBody(in, lookupMesh));
    if (!in.eat(",")) break;
  }
  in.expect("]");
  in.expect(">");
  if (!in.atEnd()) in.fail("text after the shardings");
  return out;
}

std::string printSdySharding(const Sharding& s) {
  if (s.kind == Sharding::Kind::Manual) throwUnsupported("a Shardy spelling of a manual sharding outside sdy.manual_computation");
  std::string out = "#sdy.sharding<";
  if (s.kind == Sharding::Kind::Maximal) return out + "mesh<[], device_ids=[" + std::to_string(s.device) + "]>, []>";
  out += s.meshName.empty() ? "mesh" + printSdyMesh(s.mesh) : "@" + s.meshName;
  out += ", [";
  for (size_t d = 0; d < s.dims.size(); ++d)
    out += (d ? ", " : "") + quotedAxes(s.dims[d], d < s.open.size() && s.open[d]);
  out += "]";
  if (!s.replicated.empty()) out += ", replicated=" + quotedAxes(s.replicated);
  if (!s.unreduced.empty()) out += ", unreduced=" + quotedAxes(s.unreduced);
  return out + ">";
}

}  // namespace kiln
