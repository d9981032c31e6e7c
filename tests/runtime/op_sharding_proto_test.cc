// Shardings as serialized xla.OpSharding protos, byte for byte what jaxlib 0.10.2's own
// OpSharding.SerializeToString() writes for the same sharding (the hex below was printed
// by it), so that JAX reads the shardings kiln's plugins report.
#include <gtest/gtest.h>

#include <string>

#include "ir/sharding.h"
#include "runtime/op_sharding_proto.h"

namespace kiln::runtime::proto {
namespace {

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string written(std::string_view gspmd, size_t rank) { return hex(writeOpSharding(parseHloSharding(gspmd, rank))); }

TEST(OpShardingProtoTest, WritesWhatJaxlibWrites) {
  EXPECT_EQ(written("{replicated}", 2), "");
  EXPECT_EQ(written("{manual}", 2), "0804");
  EXPECT_EQ(written("{maximal device=3}", 2), "08011a0101220103");
  // type OTHER, tile [4,1,2], devices 0..7, replicate_on_last_tile_dim.
  EXPECT_EQ(written("{devices=[4,1,2]<=[8] last_tile_dim_replicate}", 2), "08031a03040102220800010203040506073001");
  // A transposed iota: devices 0,2,1,3.
  EXPECT_EQ(written("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}", 2), "08031a030201022204000201033001");
  // Manual along the last tile dimension, after a replicated one: last_tile_dims.
  EXPECT_EQ(written("{devices=[2,1,2,2]<=[8] last_tile_dims={replicated, manual}}", 2),
            "08031a04020102022208000102030405060742020004");
  EXPECT_EQ(written("{devices=[2,2]<=[4] last_tile_dims={manual}}", 1), "08031a020202220400010203420104");
}

}  // namespace
}  // namespace kiln::runtime::proto
