// Which processes a collective or a channel op meets (collective_groups.h).
#include "interp/ops/collective_groups.h"

#include "ir/attr_records.h"

namespace kiln::interp {

ProcessContext& requireProcess(const Op& op, EvalContext& ctx) {
  ProcessContext* process = ctx.process();
  if (!process) runtimeError(op, "only supported under interpreter.run_parallel");
  return *process;
}

int64_t channelId(const Op& op) {
  return ChannelHandle::fromAttr(op.attr("channel_handle")).handle;
}

// all_gather, all_reduce and reduce_scatter choose by channel and use_global_device_ids.
GroupMode reductionMode(const Op& op) {
  bool global = static_cast<bool>(op.attr("use_global_device_ids"));
  bool channel = channelId(op) > 0;
  if (global && !channel) runtimeError(op, "use_global_device_ids needs a positive channel_id");
  return global    ? GroupMode::FlattenedIds
         : channel ? GroupMode::CrossReplicaAndPartition
                   : GroupMode::CrossReplica;
}

// all_to_all and collective_permute/broadcast/reduce choose by channel only.
GroupMode channelMode(const Op& op) {
  return channelId(op) > 0 ? GroupMode::CrossPartition : GroupMode::CrossReplica;
}

// The rows of a 2-D id matrix attribute; -1 pads the short rows of ragged groups.
std::vector<std::vector<int64_t>> idRows(const Op& op, const char* attr) {
  const Literal& lit = op.attr(attr).asDense();
  std::vector<std::vector<int64_t>> rows;
  if (lit.type().rank() != 2 || lit.numElements() == 0) return rows;
  int64_t cols = lit.shape()[1];
  for (int64_t r = 0; r < lit.shape()[0]; ++r) {
    rows.emplace_back();
    for (int64_t c = 0; c < cols; ++c)
      if (int64_t id = lit.intAt(r * cols + c); id >= 0) rows.back().push_back(id);
  }
  return rows;
}

namespace {

// How many ids the groups of a mode draw from.
int64_t idCount(GroupMode mode, const ProcessGrid& grid) {
  return mode == GroupMode::CrossPartition ? grid.numPartitions()
         : mode == GroupMode::FlattenedIds ? grid.numProcesses()
                                           : grid.numReplicas();
}

}  // namespace

std::vector<ProcessGroup> processGroups(const Op& op, GroupMode mode,
                                        const std::vector<std::vector<int64_t>>& rows,
                                        const ProcessGrid& grid) {
  int64_t replicas = grid.numReplicas(), partitions = grid.numPartitions();
  int64_t limit = idCount(mode, grid);
  const char* what = mode == GroupMode::CrossPartition ? "partition"
                     : mode == GroupMode::FlattenedIds ? "process"
                                                       : "replica";
  for (const auto& row : rows)
    for (int64_t id : row)
      if (id >= limit)
        runtimeError(op, "names " + std::string(what) + " " + std::to_string(id) +
                             ", but the grid has " + std::to_string(limit) + " " + what +
                             (limit == 1 ? "" : "s"));
  std::vector<ProcessGroup> groups;
  for (const auto& row : rows) {
    switch (mode) {
      case GroupMode::CrossReplica:
        for (int64_t p = 0; p < partitions; ++p) {
          groups.emplace_back();
          for (int64_t r : row) groups.back().push_back({r, p});
        }
        break;
      case GroupMode::CrossPartition:
        for (int64_t r = 0; r < replicas; ++r) {
          groups.emplace_back();
          for (int64_t p : row) groups.back().push_back({r, p});
        }
        break;
      case GroupMode::CrossReplicaAndPartition:
        groups.emplace_back();
        for (int64_t p = 0; p < partitions; ++p)
          for (int64_t r : row) groups.back().push_back({r, p});
        break;
      case GroupMode::FlattenedIds:
        groups.emplace_back();
        for (int64_t id : row) groups.back().push_back({id / partitions, id % partitions});
        break;
    }
  }
  return groups;
}

// The group holding this process, if any.
std::optional<ProcessGroup> groupOf(const std::vector<ProcessGroup>& groups, ProcessId self) {
  for (const ProcessGroup& g : groups)
    for (ProcessId id : g)
      if (id == self) return g;
  return std::nullopt;
}

// The group of this process under the op's replica_groups; no groups at all make one
// group of every id.
std::optional<ProcessGroup> groupOf(const Op& op, GroupMode mode, ProcessContext& self) {
  std::vector<std::vector<int64_t>> rows = idRows(op, "replica_groups");
  if (rows.empty()) {
    rows.emplace_back();
    for (int64_t id = 0; id < idCount(mode, self.grid()); ++id) rows.back().push_back(id);
  }
  return groupOf(processGroups(op, mode, rows, self.grid()), self.id());
}

ProcessGroup requireGroup(const Op& op, GroupMode mode, ProcessContext& self) {
  std::optional<ProcessGroup> group = groupOf(op, mode, self);
  if (!group) runtimeError(op, "process " + self.id().str() + " is in none of the process groups");
  return *group;
}

size_t indexIn(const ProcessGroup& group, ProcessId id) {
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i] == id) return i;
  return group.size();
}

// What a rendezvous is matched by besides its group: the op and its channel.
std::string rendezvousKey(const Op& op) {
  return std::string(op.name()) + " (channel " + std::to_string(channelId(op)) + ")";
}

std::vector<HostValues> exchange(const Op& op, ProcessContext& self, const ProcessGroup& group,
                                 HostValues values) {
  return self.grid().rendezvous(self, rendezvousKey(op), group, std::move(values));
}

}  // namespace kiln::interp
