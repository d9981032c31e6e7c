// Which processes a collective or a channel op meets (interp/ops/collectives.cc,
// communication.cc): the process grid's groups as the op's replica_groups, channel and
// use_global_device_ids choose them (spec: "Collective ops"), and the rendezvous in which
// each group's members exchange their values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "interp/kernels.h"
#include "interp/process_grid.h"

namespace kiln::interp {

// This op's process: an error at the op when it does not run under run_parallel.
ProcessContext& requireProcess(const Op& op, EvalContext& ctx);
int64_t channelId(const Op& op);

// How a collective splits the grid into process groups.
enum class GroupMode { CrossReplica, CrossPartition, CrossReplicaAndPartition, FlattenedIds };
// all_gather, all_reduce and reduce_scatter choose by channel and use_global_device_ids.
GroupMode reductionMode(const Op& op);
// all_to_all and collective_permute/broadcast/reduce choose by channel only.
GroupMode channelMode(const Op& op);

// The rows of a 2-D id matrix attribute; -1 pads the short rows of ragged groups.
std::vector<std::vector<int64_t>> idRows(const Op& op, const char* attr);
// The groups the rows of ids make under `mode` (an error at the op for an id the grid
// lacks).
std::vector<ProcessGroup> processGroups(const Op& op, GroupMode mode, const std::vector<std::vector<int64_t>>& rows,
                                        const ProcessGrid& grid);
// The group holding this process, if any.
std::optional<ProcessGroup> groupOf(const std::vector<ProcessGroup>& groups, ProcessId self);
// The group of this process under the op's replica_groups; no groups at all make one
// group of every id.
std::optional<ProcessGroup> groupOf(const Op& op, GroupMode mode, ProcessContext& self);
ProcessGroup requireGroup(const Op& op, GroupMode mode, ProcessContext& self);
// The position of `id` in `group` (group.size() when it is not there).
size_t indexIn(const ProcessGroup& group, ProcessId id);

// What a rendezvous is matched by besides its group: the op and its channel.
std::string rendezvousKey(const Op& op);
// Every member's values, in group order, once all have arrived.
std::vector<HostValues> exchange(const Op& op, ProcessContext& self, const ProcessGroup& group, HostValues values);

}  // namespace kiln::interp
