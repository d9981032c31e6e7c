// The sharding model's queries (see sharding.h); its text forms are in sharding_text.cc.
#include "ir/sharding.h"

#include <algorithm>

namespace kiln {

int64_t DeviceMesh::numDevices() const {
  int64_t n = 1;
  for (const MeshAxis& a : axes) n *= a.size;
  return n;
}

int64_t DeviceMesh::device(int64_t position) const {
  return deviceIds.empty() ? position : deviceIds[static_cast<size_t>(position)];
}

std::optional<size_t> DeviceMesh::axisIndex(std::string_view name) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return i;
  return std::nullopt;
}

int64_t DeviceMesh::axisSize(std::string_view name) const {
  std::optional<size_t> i = axisIndex(name);
  return i ? axes[*i].size : 1;
}

int64_t DeviceMesh::coordinate(int64_t position, size_t axis) const {
  int64_t stride = 1;
  for (size_t i = axis + 1; i < axes.size(); ++i) stride *= axes[i].size;
  return position / stride % axes[axis].size;
}

Sharding Sharding::replicatedOn(DeviceMesh mesh, size_t rank) {
  Sharding s;
  s.mesh = std::move(mesh);
  s.dims.resize(rank);
  s.open.assign(rank, false);
  return s;
}

Sharding Sharding::maximal(int64_t device) {
  Sharding s;
  s.kind = Kind::Maximal;
  s.device = device;
  return s;
}

bool Sharding::isFullyReplicated() const {
  if (kind != Kind::Tiled || !unreduced.empty() || !manualAxes.empty()) return false;
  return std::all_of(dims.begin(), dims.end(), [](const auto& axes) { return axes.empty(); });
}

int64_t Sharding::shardCount(size_t d) const {
  int64_t n = 1;
  for (const std::string& a : dims[d]) n *= mesh.axisSize(a);
  return n;
}

std::vector<std::string> Sharding::unusedAxes() const {
  std::vector<std::string> out;
  for (const MeshAxis& a : mesh.axes) {
    bool used = std::find(unreduced.begin(), unreduced.end(), a.name) != unreduced.end() ||
                std::find(manualAxes.begin(), manualAxes.end(), a.name) != manualAxes.end();
    for (const auto& axes : dims) used = used || std::find(axes.begin(), axes.end(), a.name) != axes.end();
    if (!used) out.push_back(a.name);
  }
  return out;
}

namespace {

// The products of an iota mesh's leading axes: where its axes start and end, in devices.
std::vector<int64_t> boundaries(const DeviceMesh& mesh) {
  std::vector<int64_t> out;
  int64_t p = 1;
  for (const MeshAxis& a : mesh.axes) {
    if (a.size == 1) continue;
    out.push_back(p *= a.size);
  }
  return out;
}

std::string refinedName(size_t i) { return "_axis_" + std::to_string(i); }

}  // namespace

std::optional<DeviceMesh> commonMesh(const std::vector<const DeviceMesh*>& meshes) {
  std::vector<const DeviceMesh*> real;
  for (const DeviceMesh* m : meshes)
    if (!m->axes.empty()) real.push_back(m);
  if (real.empty()) return DeviceMesh{};
  bool allEqual = true;
  for (const DeviceMesh* m : real) allEqual = allEqual && *m == *real[0];
  if (allEqual) return *real[0];
  std::vector<int64_t> cuts;
  for (const DeviceMesh* m : real) {
    if (!m->deviceIds.empty() || m->numDevices() != real[0]->numDevices()) return std::nullopt;
    for (int64_t b : boundaries(*m)) cuts.push_back(b);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  DeviceMesh out;
  int64_t previous = 1;
  for (int64_t c : cuts) {
    if (c % previous != 0) return std::nullopt;  // 2x3 and 3x2: no common split
    out.axes.push_back({refinedName(out.axes.size()), c / previous});
    previous = c;
  }
  return out;
}

Sharding onMesh(const Sharding& s, const DeviceMesh& mesh) {
  if (s.kind == Sharding::Kind::Maximal || s.mesh == mesh) {
    Sharding same = s;
    if (s.kind != Sharding::Kind::Maximal) same.mesh = mesh;
    return same;
  }
  // Each axis of s.mesh covers the refined axes between its boundaries.
  std::vector<std::pair<std::string, std::vector<std::string>>> runs;
  int64_t p = 1;
  size_t next = 0;
  int64_t covered = 1;
  for (const MeshAxis& a : s.mesh.axes) {
    std::vector<std::string> run;
    p *= a.size;
    while (covered < p && next < mesh.axes.size()) {
      covered *= mesh.axes[next].size;
      run.push_back(mesh.axes[next++].name);
    }
    runs.emplace_back(a.name, std::move(run));
  }
  auto map = [&](const std::vector<std::string>& axes) {
    std::vector<std::string> out;
    for (const std::string& a : axes)
      for (const auto& [name, run] : runs)
        if (name == a) out.insert(out.end(), run.begin(), run.end());
    return out;
  };
  Sharding out = s;
  out.mesh = mesh;
  out.meshName.clear();
  for (auto& axes : out.dims) axes = map(axes);
  out.replicated = map(s.replicated);
  out.unreduced = map(s.unreduced);
  out.manualAxes = map(s.manualAxes);
  return out;
}

}  // namespace kiln
