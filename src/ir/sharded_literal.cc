// Splitting a literal into the pieces of a sharding and putting them back (see
// sharded_literal.h).
#include "ir/sharded_literal.h"

#include <algorithm>
#include <cstring>

#include "support/error.h"

namespace kiln {
namespace {

// Where device `device`'s piece starts in each dimension, and the piece's shape.
struct Piece {
  Shape start, shape;
};

Piece pieceOf(const Shape& global, const Sharding& s, int64_t device) {
  Piece p{Shape(global.size(), 0), global};
  if (s.kind != Sharding::Kind::Tiled) return p;
  int64_t position = -1;
  for (int64_t i = 0; i < s.mesh.numDevices(); ++i)
    if (s.mesh.device(i) == device) position = i;
  if (position < 0) return p;  // a device outside the mesh holds the whole value
  for (size_t d = 0; d < global.size() && d < s.dims.size(); ++d) {
    int64_t index = 0;
    for (const std::string& a : s.dims[d]) {
      size_t axis = *s.mesh.axisIndex(a);
      index = index * s.mesh.axes[axis].size + s.mesh.coordinate(position, axis);
    }
    p.shape[d] = global[d] / s.shardCount(d);
    p.start[d] = index * p.shape[d];
  }
  return p;
}

// Calls copy(globalOffset, pieceOffset, count) for each run of the piece's elements that
// lie next to each other in the global array (a row of its last dimension), in order.
template <class Fn>
void forEachRun(const Shape& global, const Piece& p, Fn&& copy) {
  const size_t rank = global.size();
  if (numElements(p.shape) == 0) return;
  if (rank == 0) return copy(0, 0, 1);
  const int64_t run = p.shape[rank - 1];
  Shape index(rank, 0);
  for (int64_t k = 0, n = numElements(p.shape); k < n; k += run) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset = offset * global[d] + p.start[d] + index[d];
    copy(offset, k, run);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < p.shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

Literal shardOf(const Literal& global, const Sharding& s, int64_t device) {
  Piece p = pieceOf(global.shape(), s, device);
  if (p.shape == global.shape()) return global;
  Literal whole = global;
  const uint8_t* from = whole.denseStorage();
  const size_t width = storageBytes(global.dtype());
  Literal out(Type::tensor(global.dtype(), p.shape));
  uint8_t* to = out.mutableStorage();
  forEachRun(global.shape(), p, [&](int64_t g, int64_t k, int64_t n) { std::memcpy(to + k * width, from + g * width, n * width); });
  return out;
}

Literal assembleShards(const std::vector<Literal>& pieces, const Sharding& s, const Type& global) {
  Literal out(global);
  uint8_t* to = out.mutableStorage();
  const size_t width = storageBytes(global.dtype());
  std::vector<int64_t> writer(static_cast<size_t>(global.numElements()), -1);  // which device wrote it
  for (size_t device = 0; device < pieces.size(); ++device) {
    Piece p = pieceOf(global.shape(), s, static_cast<int64_t>(device));
    if (pieces[device].shape() != p.shape || pieces[device].dtype() != global.dtype())
      throw Error(ErrorKind::Runtime, "device " + std::to_string(device) + " returned " + pieces[device].type().str() +
                                          " where its piece of " + global.str() + " is " +
                                          Type::tensor(global.dtype(), p.shape).str());
    Literal piece = pieces[device];
    const uint8_t* from = piece.denseStorage();
    forEachRun(global.shape(), p, [&](int64_t g, int64_t k, int64_t n) {
      if (writer[g] >= 0 && std::memcmp(to + g * width, from + k * width, n * width) != 0)
        throw Error(ErrorKind::Runtime, "devices " + std::to_string(writer[g]) + " and " + std::to_string(device) +
                                            " hold different copies of a replicated value");
      std::memcpy(to + g * width, from + k * width, n * width);
      std::fill(writer.begin() + g, writer.begin() + g + n, static_cast<int64_t>(device));
    });
  }
  return out;
}

}  // namespace kiln
