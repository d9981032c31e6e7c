// A sharding as a serialized xla.OpSharding (see op_sharding_proto.h).
#include "runtime/op_sharding_proto.h"

#include "runtime/proto_writer.h"

namespace kiln::runtime::proto {

namespace {
enum OpShardingType : uint64_t { kReplicated = 0, kMaximal = 1, kOther = 3, kManual = 4 };
}  // namespace

std::string writeOpSharding(const Sharding& sharding) {
  const HloTiles t = hloTilesOf(sharding);
  std::string out;
  switch (t.kind) {
    case HloTiles::Kind::Replicated: return out;  // every field at its default
    case HloTiles::Kind::Maximal:
      putNumber(out, 1, kMaximal);
      putPacked(out, 3, {1});
      putPacked(out, 4, {t.device});
      return out;
    case HloTiles::Kind::Manual: putNumber(out, 1, kManual); return out;
    case HloTiles::Kind::Tiled: break;
  }
  putNumber(out, 1, kOther);
  putPacked(out, 3, t.tile);
  putPacked(out, 4, t.devices);
  if (t.lastReplicated && !t.lastManual) {
    putNumber(out, 6, 1);
  } else if (t.lastManual) {
    std::vector<int64_t> last;
    if (t.lastReplicated) last.push_back(kReplicated);
    last.push_back(kManual);
    putPacked(out, 8, last);
  }
  return out;
}

}  // namespace kiln::runtime::proto
