// Kernels: interpreter.run_parallel, which runs its functions as processes of a grid,
// and what a process asks of it alone: replica_id, partition_id, and the token-threaded
// communication ops (send and recv on a channel's FIFO, infeed, outfeed).
#include <cstring>

#include "interp/kernels.h"
#include "interp/ops/collective_groups.h"
#include "interp/ops/fold.h"
#include "interp/process_grid.h"
#include "ir/attr_records.h"
#include "ir/attr_schema.h"
#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"
#include "support/large_bytes.h"

namespace kiln::interp {
namespace {

HostValues replicaId(const Op& op, const HostValues&, EvalContext& ctx) {
  Literal id(Type::scalar(DType::U32));
  id.setInt(0, requireProcess(op, ctx).id().replica);
  return {id};
}

HostValues partitionId(const Op& op, const HostValues&, EvalContext& ctx) {
  Literal id(Type::scalar(DType::U32));
  id.setInt(0, requireProcess(op, ctx).id().partition);
  return {id};
}

// send/recv: values travel on a FIFO per channel id, whatever the channel type.
HostValues send(const Op& op, const HostValues& v, EvalContext& ctx) {
  ProcessContext& self = requireProcess(op, ctx);
  self.grid().send(channelId(op), HostValues(v.begin(), v.end() - 1));
  return {HostValue::token()};
}

void checkType(const Op& op, size_t i, const HostValue& got, const char* from) {
  if (got.type() != op.result(i)->type())
    runtimeError(op, std::string("got ") + got.type().str() + " from " + from + " for result " + std::to_string(i) +
                         ", which has type " + op.result(i)->type().str());
}

void checkTypes(const Op& op, const HostValues& got, const char* from) {
  if (got.size() + 1 != op.numResults())
    runtimeError(op, std::string("got ") + std::to_string(got.size()) + " values from " + from +
                         ", expects " + std::to_string(op.numResults() - 1));
  for (size_t i = 0; i < got.size(); ++i) checkType(op, i, got[i], from);
}

HostValues recv(const Op& op, const HostValues&, EvalContext& ctx) {
  ProcessContext& self = requireProcess(op, ctx);
  int64_t channel = channelId(op);
  HostValues results = self.grid().recv(self, channel);
  checkTypes(op, results, ("channel " + std::to_string(channel)).c_str());
  results.push_back(HostValue::token());
  return results;
}

// infeed: under a run_parallel with an infeed list, the list's next function gives the
// values; else, on a device, its infeed queue gives one value per result (taken in
// order, a value of the wrong type too: the run fails naming it).
HostValues infeed(const Op& op, const HostValues&, EvalContext& ctx) {
  const InterpOptions& options = ctx.interpreter().options();
  const bool fromList = ctx.process() && ctx.process()->grid().hasInfeedList();
  if (options.feeds && !fromList) {
    HostValues results;
    for (size_t i = 0; i + 1 < op.numResults(); ++i) {
      results.push_back(options.feeds->takeInfeed(options));
      checkType(op, i, results.back(), "the device's infeed");
    }
    results.push_back(HostValue::token());
    return results;
  }
  ProcessContext& self = requireProcess(op, ctx);
  std::optional<std::string> fn = self.grid().popInfeed();
  if (!fn) runtimeError(op, "the infeed queue is empty");
  HostValues results = ctx.callFunction(*fn, {});
  checkTypes(op, results, ("infeed @" + *fn).c_str());
  results.push_back(HostValue::token());
  return results;
}

// outfeed: on a device, its values join the device's outfeed queue (the host reads
// them); elsewhere nobody reads the outfeed, so they are dropped.
HostValues outfeed(const Op&, const HostValues& v, EvalContext& ctx) {
  if (DeviceFeeds* feeds = ctx.interpreter().options().feeds)
    for (size_t i = 0; i + 1 < v.size(); ++i) feeds->putOutfeed(v[i]);
  return {HostValue::token()};
}

HostValues runParallel(const Op& op, const HostValues& v, EvalContext& ctx) {
  if (const auto& elsewhere = ctx.interpreter().options().runParallel)
    if (std::optional<HostValues> results = elsewhere(op, v)) return std::move(*results);
  const Module& module = ctx.interpreter().module();
  std::vector<std::string> names;
  int64_t replicas = 0, partitions = 0;
  for (const Attribute& row : op.attr("programs").asArray()) {
    int64_t n = static_cast<int64_t>(row.asArray().size());
    if (replicas == 0) partitions = n;
    if (n != partitions || n == 0)
      runtimeError(
          op,
          "programs must be a non-empty grid: every replica needs the same number of partitions");
    for (const Attribute& fn : row.asArray()) names.push_back(fn.asString());
    ++replicas;
  }
  if (replicas == 0) runtimeError(op, "programs must name at least one function");

  // Inputs and results are flattened replica-major: each process takes as many inputs
  // as its function has parameters.
  std::vector<HostValues> inputs(names.size());
  size_t next = 0, numResults = 0;
  for (size_t k = 0; k < names.size(); ++k) {
    const Function* fn = module.lookup(names[k]);
    if (!fn) runtimeError(op, "no function @" + names[k]);
    for (size_t i = 0; i < fn->numParams(); ++i, ++next) {
      if (next >= v.size())
        runtimeError(
            op, "the programs take more than the " + std::to_string(v.size()) + " inputs given");
      if (v[next].type() != fn->param(i)->type())
        runtimeError(op, "input " + std::to_string(next) + " has type " + v[next].type().str() +
                             ", but @" + names[k] + " takes " + fn->param(i)->type().str());
      inputs[k].push_back(v[next]);
    }
    numResults += fn->resultTypes().size();
  }
  if (next != v.size())
    runtimeError(op, "the programs take " + std::to_string(next) + " of the " +
                         std::to_string(v.size()) + " inputs given");
  if (numResults != op.numResults())
    runtimeError(op, "the programs return " + std::to_string(numResults) + " values, the op has " +
                         std::to_string(op.numResults()) + " results");

  std::vector<std::string> infeed;
  if (Attribute queue = op.attr("infeed"))
    for (const Attribute& fn : queue.asArray()) infeed.push_back(fn.asString());

  ProcessGrid grid(replicas, partitions, std::move(infeed), ctx.interpreter().options());
  std::vector<HostValues> outputs(names.size());
  grid.run([&](ProcessContext& process) {
    size_t k = grid.flatIndex(process.id());
    outputs[k] = ctx.callFunctionIn(&process, names[k], inputs[k]);
  });
  HostValues results;
  for (HostValues& out : outputs)
    for (HostValue& value : out) results.push_back(std::move(value));
  return results;
}

}  // namespace

void addCommunicationKernels(KernelTable& t) {
  t.set(ops::InterpreterRunParallel, &runParallel);
  t.set(ops::ReplicaId, &replicaId);
  t.set(ops::PartitionId, &partitionId);
  t.set(ops::Send, &send);
  t.set(ops::Recv, &recv);
  t.set(ops::Infeed, &infeed);
  t.set(ops::Outfeed, &outfeed);
}

}  // namespace kiln::interp
