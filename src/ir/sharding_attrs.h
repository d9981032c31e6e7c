// Where shardings sit in the IR, read into the sharding model (ir/sharding.h):
//  - a function's parameters and results: `mhlo.sharding = "{...}"` (GSPMD) or
//    `sdy.sharding = #sdy.sharding<...>` (Shardy) among their attributes;
//  - any op's results: `mhlo.sharding` (the tuple form for several results) or
//    `sdy.sharding = #sdy.sharding_per_value<[...]>`, as in XLA: the op's result has that
//    sharding;
//  - a sharding constraint — `custom_call @Sharding` and `sdy.sharding_constraint` — is an
//    identity reshape carrying one: every executor runs it as the identity (and the
//    simplifier removes it once nothing partitions the program), and the printer writes
//    it back in the form it came in.
#pragma once

#include <optional>
#include <vector>

#include "ir/module.h"
#include "ir/sharding.h"

namespace kiln {

inline constexpr std::string_view kHloShardingAttr = "mhlo.sharding";
inline constexpr std::string_view kSdyShardingAttr = "sdy.sharding";

// The sharding given for a parameter / result of `fn`, if any.
std::optional<Sharding> paramSharding(const Module& module, const Function& fn, size_t i);
std::optional<Sharding> resultSharding(const Module& module, const Function& fn, size_t i);
// The shardings given for `op`'s results (one per result), if any.
std::optional<std::vector<Sharding>> opShardings(const Module& module, const Op& op);

bool isShardingConstraint(const Op& op);

// shard_map's boundaries: @SPMDFullToShardShape (entry: the global value's piece
// becomes each device's own value) and @SPMDShardToFullShape (exit). One that changes the
// shape stays a custom call; one that does not (a one-device mesh) is an identity reshape
// carrying kShardMapBoundaryAttr (the target's name), printed back as the call.
inline constexpr std::string_view kShardMapBoundaryAttr = "kiln.shard_map_boundary";
enum class ShardMapBoundary { None, Entry, Exit };
ShardMapBoundary shardMapBoundary(const Op& op);

// The op XLA's custom call `target` — "Sharding" (a constraint, or shard_map's "{manual}"
// mark), "SPMDFullToShardShape" or "SPMDShardToFullShape" — from a value of type `from`
// to `to` becomes in kiln: its code and attributes, `sharding` among them (as the
// attribute `shardingAttr`: kHloShardingAttr or kSdyShardingAttr; none when null). The
// one place these are built: the parser, Shardy's import and the frontend's shard_map
// all make them here.
struct ShardingMarker {
  OpCode code;
  NamedAttrList attrs;
};
ShardingMarker shardingMarker(std::string_view target, const Type& from, const Type& to, std::string_view shardingAttr,
                              Attribute sharding);

// Checks that every sharding attribute of `module` parses and fits the rank of its value
// (a Parse or Unsupported error located at the op or function otherwise).
void verifyShardings(const Module& module);

}  // namespace kiln
