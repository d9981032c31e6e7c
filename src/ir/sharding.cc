// The sharding model's queries (see sharding.h); its text forms are in sharding_text.cc.
#include "ir/sharding.h"

#include <algorithm>

namespace kiln {

int64_t Mesh::numDevices() const {
  int64_t n = 1;
  for (const MeshAxis& a : axes) n *= a.size;
  return n;
}

int64_t Mesh::device(int64_t position) const {
  return deviceIds.empty() ? position : deviceIds[static_cast<size_t>(position)];
}

std::optional<size_t> Mesh::axisIndex(std::string_view name) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return i;
  return std::nullopt;
}

int64_t Mesh::axisSize(std::string_view name) const {
  std::optional<size_t> i = axisIndex(name);
  return i ? axes[*i].size : 1;
}

int64_t Mesh::coordinate(int64_t position, size_t axis) const {
  int64_t stride = 1;
  for (size_t i = axis + 1; i < axes.size(); ++i) stride *= axes[i].size;
  return position / stride % axes[axis].size;
}

Sharding Sharding::replicatedOn(Mesh mesh, size_t rank) {
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

}  // namespace kiln
