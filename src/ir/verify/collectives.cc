// Verifier rules: communication — the collectives (all_gather, all_reduce, all_to_all,
// reduce_scatter, collective_permute/broadcast/reduce) and the token-threaded ops
// (send, recv, infeed, outfeed, after_all). The number of processes is only known at
// run time, so the rules check what the text fixes: process ids, group sizes, channel
// ids and the result types the formulas give.
#include "ir/verify/rules.h"

#include "ir/attr_schema.h"

namespace kiln {
namespace {

std::string num(int64_t n) {
  return std::to_string(n);
}

// An integer matrix attribute (replica_groups, source_target_pairs).
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int64_t> values;  // row-major
};

Matrix matrixAttr(const OpVerifier& v, const char* attr) {
  const Literal& lit = v.op().attr(attr).asDense();
  v.check(lit.type().rank() == 2,
          [&] { return std::string(attr) + " must be a 2-D tensor, got " + lit.type().str(); });
  Matrix m{lit.shape()[0], lit.shape()[1], {}};
  for (int64_t i = 0; i < lit.numElements(); ++i) m.values.push_back(lit.intAt(i));
  return m;
}

// replica_groups: unique, non-negative process ids (C2 and C4 of all_gather and
// friends). Ops whose groups may differ in size pad the short rows with -1. Returns the
// group size, or nullopt when the groups are empty (one group of every process).
std::optional<int64_t> checkReplicaGroups(const OpVerifier& v, bool allowPadding) {
  Matrix m = matrixAttr(v, "replica_groups");
  std::vector<int64_t> ids;
  for (int64_t id : m.values) {
    if (id == -1 && allowPadding) continue;
    v.check(id >= 0, [&] { return "replica_groups holds the invalid process id " + num(id); });
    ids.push_back(id);
  }
  v.check(allUnique(ids), [&] {
    return "replica_groups " + shapeStr(m.values) + " names a process more than once";
  });
  if (m.values.empty()) return std::nullopt;
  return m.cols;
}

// C5 of all_gather/all_reduce/reduce_scatter: global device ids need a channel.
void checkGlobalDeviceIds(const OpVerifier& v) {
  if (!v.has("use_global_device_ids")) return;
  Attribute channel = v.op().attr("channel_handle");
  v.check(channel && recordInt(channel, "handle") > 0,
          [&] { return "use_global_device_ids needs a channel_handle with a positive handle"; });
}

void checkSameCount(const OpVerifier& v) {
  v.check(v.op().numResults() == v.op().numOperands(), [&] {
    return "has " + num(v.op().numResults()) + " results for " + num(v.op().numOperands()) +
           " operands";
  });
}

void checkDimIndex(const OpVerifier& v, const char* attr, int64_t dim, const Type& t) {
  v.check(dim >= 0 && dim < t.rank(), [&] {
    return std::string(attr) + " " + num(dim) + " is outside [0, " + num(t.rank()) + ") for " +
           t.str();
  });
}

template <class Because>
void checkResultType(const OpVerifier& v, size_t i, const Type& expected, Because&& because) {
  const Type& r = v.tensorResult(i);
  v.check(r == expected, [&] {
    return "result " + num(i) + " has type " + r.str() + ", expected " + expected.str() + " (" +
           std::string(because()) + ")";
  });
}

// The size of the process groups of all_gather and reduce_scatter: each replica group
// is one process group (cross_replica, flattened_ids), except when a channel is given
// without global device ids (cross_replica_and_partition): then each group spans every
// partition, a multiple of its size that is only known at run time.
struct GroupSize {
  int64_t unit = 1;
  bool exact = false;  // else the size is some multiple of `unit`
};

GroupSize processGroupSize(const OpVerifier& v) {
  std::optional<int64_t> cols = checkReplicaGroups(v, false);
  checkGlobalDeviceIds(v);
  if (!cols) return {};  // one group of all processes
  Attribute channel = v.op().attr("channel_handle");
  bool crossPartition =
      channel && recordInt(channel, "handle") > 0 && !v.has("use_global_device_ids");
  return {*cols, !crossPartition};
}

std::string groupText(const GroupSize& g) {
  return g.exact ? "groups of " + num(g.unit)
                 : "groups of a multiple of " + num(g.unit) + " processes";
}

void allGatherRule(OpVerifier& v) {
  checkSameCount(v);
  GroupSize group = processGroupSize(v);
  int64_t dim = v.integer("all_gather_dim");
  for (size_t i = 0; i < v.op().numOperands(); ++i) {
    const Type& x = v.tensorOperand(i);
    checkDimIndex(v, "all_gather_dim", dim, x);
    const Type& r = v.tensorResult(i);
    int64_t from = x.dim(dim);
    bool fits = r.dtype() == x.dtype() && r.rank() == x.rank();
    for (int64_t d = 0; fits && d < x.rank(); ++d) {
      int64_t to = r.dim(d);
      if (d != dim)
        fits = to == x.dim(d);
      else if (group.exact)
        fits = to == satMul(from, group.unit);
      else
        fits = from == 0 ? to == 0 : to % from == 0 && (to / from) % group.unit == 0;
    }
    v.check(fits, [&] {
      return "result " + num(i) + " has type " + r.str() + ", which is not operand " + x.str() +
             " gathered along dimension " + num(dim) + " from " + groupText(group);
    });
  }
}

// The body of all_reduce/reduce_scatter/collective_reduce: (tensor<E>, tensor<E>) -> tensor<E>
// with every operand's element type promotable to E.
DType checkCollectiveBody(const OpVerifier& v) {
  DType acc = checkReducer(v, 0, {v.tensorOperand(0).dtype()})[0];
  for (size_t i = 1; i < v.op().numOperands(); ++i) {
    DType t = v.tensorOperand(i).dtype();
    v.check(isPromotable(t, acc), [&] {
      return "operand " + num(i) + " element type " + std::string(name(t)) +
             " cannot be promoted to the body's " + std::string(name(acc));
    });
  }
  return acc;
}

void allReduceRule(OpVerifier& v) {
  checkSameCount(v);
  checkReplicaGroups(v, true);
  checkGlobalDeviceIds(v);
  DType acc = checkCollectiveBody(v);
  for (size_t i = 0; i < v.op().numOperands(); ++i)
    checkResultType(v, i, Type::tensor(acc, v.operandType(i).shape()),
                    [&] { return "the operand shape with the body's element type"; });
}

void reduceScatterRule(OpVerifier& v) {
  GroupSize group = processGroupSize(v);
  const Type& x = v.tensorOperand(0);
  const Type& r = v.tensorResult();
  int64_t dim = v.integer("scatter_dimension");
  checkDimIndex(v, "scatter_dimension", dim, x);
  DType acc = checkCollectiveBody(v);
  int64_t from = x.dim(dim);
  v.check(from % group.unit == 0, [&] {
    return "scatter dimension " + num(dim) + " of " + x.str() + " does not split into " +
           groupText(group);
  });
  bool fits = r.dtype() == acc && r.rank() == x.rank();
  for (int64_t d = 0; fits && d < x.rank(); ++d) {
    int64_t to = r.dim(d);
    if (d != dim)
      fits = to == x.dim(d);
    else if (group.exact)
      fits = to == from / group.unit;
    else
      fits = to == 0 ? from == 0 : from % to == 0 && (from / to) % group.unit == 0;
  }
  v.check(fits, [&] {
    return "result has type " + r.str() + ", which is not operand " + x.str() +
           " scattered along dimension " + num(dim) + " to " + groupText(group) +
           " with the body's element type " + std::string(name(acc));
  });
}

void collectiveReduceRule(OpVerifier& v) {
  checkReplicaGroups(v, true);
  DType acc = checkCollectiveBody(v);
  checkResultType(v, 0, Type::tensor(acc, v.operandType(0).shape()),
                  [&] { return "the operand shape with the body's element type"; });
}

void allToAllRule(OpVerifier& v) {
  checkSameCount(v);
  std::optional<int64_t> groupSize = checkReplicaGroups(v, false);
  int64_t split = v.integer("split_dimension");
  int64_t concat = v.integer("concat_dimension");
  int64_t count = v.integer("split_count");
  v.check(count > 0, [&] { return "split_count must be positive, got " + num(count); });
  if (groupSize)
    v.check(*groupSize == count, [&] {
      return "replica groups have " + num(*groupSize) + " members, but split_count is " +
             num(count);
    });
  for (size_t i = 0; i < v.op().numOperands(); ++i) {
    const Type& x = v.tensorOperand(i);
    checkDimIndex(v, "split_dimension", split, x);
    checkDimIndex(v, "concat_dimension", concat, x);
    Shape shape = x.shape();
    v.check(shape[static_cast<size_t>(split)] % count == 0, [&] {
      return "split dimension " + num(split) + " of " + x.str() +
             " is not divisible by split_count " + num(count);
    });
    if (split != concat) {
      shape[static_cast<size_t>(split)] /= count;
      shape[static_cast<size_t>(concat)] = satMul(shape[static_cast<size_t>(concat)], count);
    }
    checkResultType(v, i, Type::tensor(x.dtype(), shape), [&] {
      return "operand " + x.str() + " split " + num(count) + " ways along " + num(split) +
             " and concatenated along " + num(concat);
    });
  }
}

// source_target_pairs: [k, 2], each process sends at most once and receives at most once.
void checkSourceTargetPairs(const OpVerifier& v) {
  Matrix m = matrixAttr(v, "source_target_pairs");
  v.check(m.cols == 2 || m.values.empty(), [&] {
    return "source_target_pairs must have shape [k, 2], got [" + num(m.rows) + ", " + num(m.cols) +
           "]";
  });
  std::vector<int64_t> sources, targets;
  for (int64_t r = 0; r < m.rows && m.cols == 2; ++r) {
    sources.push_back(m.values[static_cast<size_t>(2 * r)]);
    targets.push_back(m.values[static_cast<size_t>(2 * r + 1)]);
  }
  for (int64_t id : m.values)
    v.check(id >= 0, [&] { return "source_target_pairs holds the invalid process id " + num(id); });
  v.check(allUnique(sources),
          [&] { return "source_target_pairs sources " + shapeStr(sources) + " repeat a process"; });
  v.check(allUnique(targets),
          [&] { return "source_target_pairs targets " + shapeStr(targets) + " repeat a process"; });
}

void collectivePermuteRule(OpVerifier& v) {
  checkSourceTargetPairs(v);
  const Type& x = v.tensorOperand(0);
  checkResultType(v, 0, x, [&] { return "the operand type"; });
}

void collectiveBroadcastRule(OpVerifier& v) {
  checkReplicaGroups(v, true);
  size_t n = v.op().numOperands();
  size_t data = n;
  if (v.has("has_dynamic_root")) {
    v.check(n >= 2,
            [&] { return "has_dynamic_root needs the data operands and a last operand of roots"; });
    data = n - 1;
    Type roots = Type::tensor(DType::I32, {static_cast<int64_t>(data)});
    v.check(v.operandType(data) == roots, [&] {
      return "the roots operand has type " + v.operandType(data).str() + ", expected " +
             roots.str() + " (one root per data operand)";
    });
  }
  v.check(v.op().numResults() == data, [&] {
    return "has " + num(v.op().numResults()) + " results for " + num(data) + " data operands";
  });
  for (size_t i = 0; i < data; ++i)
    checkResultType(v, i, v.tensorOperand(i), [&] { return "the operand type"; });
}

// Token-threaded ops: data values are tensors and the token comes last.
void checkDataThenToken(const OpVerifier& v, const TypeList& types, const std::string& what) {
  v.check(!types.empty() && types.back().isToken(),
          [&] { return "the last of its " + what + " must be a !stablehlo.token"; });
  for (size_t i = 0; i + 1 < types.size(); ++i)
    v.check(types[i].isTensor(),
            [&] { return what + " " + num(i) + " must be a tensor, got " + types[i].str(); });
}

void checkTokenResult(const OpVerifier& v) {
  v.check(v.resultType().isToken(),
          [&] { return "result must be a !stablehlo.token, got " + v.resultType().str(); });
}

// C5 of send/recv: a host transfer travels on a host channel and a device transfer on a
// device channel (channel type 1 is device-to-device, 2 device-to-host, 3 host-to-device;
// 0 leaves it unset). The spec names DEVICE_TO_HOST for recv as well, but a recv from
// the host is HOST_TO_DEVICE in HLO and in the conformance files.
void checkChannelType(const OpVerifier& v, int64_t hostType) {
  int64_t type = recordInt(v.op().attr("channel_handle"), "type");
  bool host = v.op().attrOrDefault("is_host_transfer").asBool();
  if (host)
    v.check(type == 0 || type == hostType, [&] {
      return "a host transfer needs channel type " + num(hostType) + ", got " + num(type);
    });
  else
    v.check(type == 0 || type == 1, [&] {
      return "a device transfer needs channel type 1 (DEVICE_TO_DEVICE), got " + num(type);
    });
  if (v.has("source_target_pairs")) checkSourceTargetPairs(v);
}

void sendRule(OpVerifier& v) {
  checkDataThenToken(v, v.op().operandTypes(), "operands");
  checkTokenResult(v);
  checkChannelType(v, 2);
}

void recvRule(OpVerifier& v) {
  v.check(v.operandType(0).isToken(),
          [&] { return "operand must be a !stablehlo.token, got " + v.operandType(0).str(); });
  checkDataThenToken(v, v.op().resultTypes(), "results");
  checkChannelType(v, 3);
}

void infeedRule(OpVerifier& v) {
  v.check(v.operandType(0).isToken(),
          [&] { return "operand must be a !stablehlo.token, got " + v.operandType(0).str(); });
  checkDataThenToken(v, v.op().resultTypes(), "results");
}

void outfeedRule(OpVerifier& v) {
  checkDataThenToken(v, v.op().operandTypes(), "operands");
  checkTokenResult(v);
}

void afterAllRule(OpVerifier& v) {
  for (size_t i = 0; i < v.op().numOperands(); ++i)
    v.check(v.operandType(i).isToken(), [&] {
      return "operand " + num(i) + " must be a !stablehlo.token, got " + v.operandType(i).str();
    });
  checkTokenResult(v);
}

void processIdRule(OpVerifier& v) {
  v.check(v.resultType() == Type::scalar(DType::U32),
          [&] { return "result must be tensor<ui32>, got " + v.resultType().str(); });
}

}  // namespace

void addCollectiveRules(RuleTable& table) {
  using O = OpCode;
  table.set(O::AllGather, &allGatherRule);
  table.set(O::AllReduce, &allReduceRule);
  table.set(O::ReduceScatter, &reduceScatterRule);
  table.set(O::CollectiveReduce, &collectiveReduceRule);
  table.set(O::AllToAll, &allToAllRule);
  table.set(O::CollectivePermute, &collectivePermuteRule);
  table.set(O::CollectiveBroadcast, &collectiveBroadcastRule);
  table.set(O::Send, &sendRule);
  table.set(O::Recv, &recvRule);
  table.set(O::Infeed, &infeedRule);
  table.set(O::Outfeed, &outfeedRule);
  table.set(O::AfterAll, &afterAllRule);
  table.set(O::ReplicaId, &processIdRule);
  table.set(O::PartitionId, &processIdRule);
}

}  // namespace kiln
