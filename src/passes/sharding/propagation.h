// Sharding propagation (GSPMD's and Shardy's job): from the shardings a program gives —
// of its parameters and results, of ops' results, of sharding constraints — a sharding
// for every value of the function, carried through each op by its sharding rule
// (sharding_rules.h), forward and backward until nothing changes. Where an op's values
// offer different shardings for one factor, the one that moves the fewest bytes wins
// (each value that disagrees must be resharded); every such choice is noted with the op
// and its source line, for `kiln compile --report`.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/module.h"
#include "ir/sharding.h"

namespace kiln::passes {

struct ShardingPlan {
  DeviceMesh mesh;              // every sharding of the plan is over this mesh
  bool shardy = false;    // the program wrote Shardy's shardings (new ones print that way)
  std::string meshName;   // the sdy.mesh that is `mesh`, if any
  std::unordered_map<const Value*, Sharding> values;  // the function's top-level values
  std::vector<Sharding> results;                      // what each result is to be
  // Values inside a shard_map: each device's own, from @SPMDFullToShardShape to
  // @SPMDShardToFullShape; they have no global layout (and no entry in `values`).
  std::unordered_set<const Value*> manual;
  std::vector<std::string> notes;                     // the choices made, op and line first

  int64_t numDevices() const { return mesh.numDevices(); }
  const Sharding& of(const Value* v) const { return values.at(v); }
  // The attribute text of `s` in the program's form (GSPMD string or Shardy attribute).
  Attribute attribute(const Sharding& s) const;
};

// Whether `module`'s function `fn` gives any sharding (so partitioning it means anything).
bool hasShardings(const Module& module, const Function& fn);

ShardingPlan propagateShardings(const Module& module, const Function& fn);

}  // namespace kiln::passes
