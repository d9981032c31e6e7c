// Type rules: communication — the collectives (all_gather, all_reduce, all_to_all,
// reduce_scatter, collective_permute/broadcast/reduce) and the token-threaded ops
// (send, recv, infeed, outfeed, after_all). The number of processes is only known at
// run time, so the rules check what the text fixes: process ids, group sizes, channel
// ids; they infer the result types the formulas give, and where a result size depends on
// the process count (gathers over every partition) they check the given one.
#include "ir/verify/rules.h"

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln {
namespace {

// An integer matrix attribute (replica_groups, source_target_pairs).
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int64_t> values;  // row-major
};

Matrix matrixAttr(const InferContext& v, const char* attr) {
  const Literal& lit = v.attr(attr).asDense();
  v.check(lit.type().rank() == 2,
          [&] { return std::string(attr) + " must be a 2-D tensor, got " + lit.type().str(); });
  Matrix m{lit.shape()[0], lit.shape()[1], {}};
  for (int64_t i = 0; i < lit.numElements(); ++i) m.values.push_back(lit.intAt(i));
  return m;
}

// replica_groups: unique, non-negative process ids (C2 and C4 of all_gather and
// friends). Ops whose groups may differ in size pad the short rows with -1. Returns the
// group size, or nullopt when the groups are empty (one group of every process).
std::optional<int64_t> checkReplicaGroups(const InferContext& v, bool allowPadding) {
  Matrix m = matrixAttr(v, "replica_groups");
  std::vector<int64_t> ids;
  for (int64_t id : m.values) {
    if (id == -1 && allowPadding) continue;
    v.check(id >= 0, [&] { return "replica_groups holds the invalid process id " + std::to_string(id); });
    ids.push_back(id);
  }
  v.check(allUnique(ids), [&] {
    return "replica_groups " + shapeStr(m.values) + " names a process more than once";
  });
  if (m.values.empty()) return std::nullopt;
  return m.cols;
}

// C5 of all_gather/all_reduce/reduce_scatter: global device ids need a channel.
void checkGlobalDeviceIds(const InferContext& v) {
  if (!v.has("use_global_device_ids")) return;
  v.check(ChannelHandle::fromAttr(v.attr("channel_handle")).handle > 0,
          [&] { return "use_global_device_ids needs a channel_handle with a positive handle"; });
}

void checkDimIndex(const InferContext& v, const char* attr, int64_t dim, const Type& t) {
  v.check(dim >= 0 && dim < t.rank(), [&] {
    return std::string(attr) + " " + std::to_string(dim) + " is outside [0, " + std::to_string(t.rank()) + ") for " +
           t.str();
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

GroupSize processGroupSize(const InferContext& v) {
  std::optional<int64_t> cols = checkReplicaGroups(v, false);
  checkGlobalDeviceIds(v);
  if (!cols) return {};  // one group of all processes
  bool crossPartition = ChannelHandle::fromAttr(v.attr("channel_handle")).handle > 0 &&
                        !v.has("use_global_device_ids");
  return {*cols, !crossPartition};
}

std::string groupText(const GroupSize& g) {
  return g.exact ? "groups of " + std::to_string(g.unit)
                 : "groups of a multiple of " + std::to_string(g.unit) + " processes";
}

void allGatherRule(InferContext& v) {
  GroupSize group = processGroupSize(v);
  int64_t dim = v.integer("all_gather_dim");
  for (size_t i = 0; i < v.numOperands(); ++i) {
    const Type& x = v.tensorOperand(i);
    checkDimIndex(v, "all_gather_dim", dim, x);
    auto because = [&] {
      return "operand " + x.str() + " gathered along dimension " + std::to_string(dim) + " from " +
             groupText(group);
    };
    if (group.exact) {
      Shape shape = x.shape();
      shape[static_cast<size_t>(dim)] = satMul(shape[static_cast<size_t>(dim)], group.unit);
      v.infer(i, Type::tensor(x.dtype(), shape), because);
      continue;
    }
    const Type& r = v.givenTensor(i);
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
    v.check(fits, [&] { return "result " + std::to_string(i) + " has type " + r.str() + ", which is not " + because(); });
  }
}

// The body of all_reduce/reduce_scatter/collective_reduce: (tensor<E>, tensor<E>) -> tensor<E>
// with every operand's element type promotable to E.
DType checkCollectiveBody(const InferContext& v) {
  DType acc = checkReducer(v, 0, {v.tensorOperand(0).dtype()})[0];
  for (size_t i = 1; i < v.numOperands(); ++i) {
    DType t = v.tensorOperand(i).dtype();
    v.check(isPromotable(t, acc), [&] {
      return "operand " + std::to_string(i) + " element type " + std::string(name(t)) +
             " cannot be promoted to the body's " + std::string(name(acc));
    });
  }
  return acc;
}

void allReduceRule(InferContext& v) {
  checkReplicaGroups(v, true);
  checkGlobalDeviceIds(v);
  DType acc = checkCollectiveBody(v);
  for (size_t i = 0; i < v.numOperands(); ++i)
    v.infer(i, Type::tensor(acc, v.operandType(i).shape()),
            [&] { return "the operand shape with the body's element type"; });
}

void reduceScatterRule(InferContext& v) {
  GroupSize group = processGroupSize(v);
  const Type& x = v.tensorOperand(0);
  int64_t dim = v.integer("scatter_dimension");
  checkDimIndex(v, "scatter_dimension", dim, x);
  DType acc = checkCollectiveBody(v);
  int64_t from = x.dim(dim);
  v.check(from % group.unit == 0, [&] {
    return "scatter dimension " + std::to_string(dim) + " of " + x.str() + " does not split into " +
           groupText(group);
  });
  auto because = [&] {
    return "operand " + x.str() + " scattered along dimension " + std::to_string(dim) + " to " +
           groupText(group) + " with the body's element type " + std::string(name(acc));
  };
  if (group.exact) {
    Shape shape = x.shape();
    shape[static_cast<size_t>(dim)] = from / group.unit;
    v.infer(0, Type::tensor(acc, shape), because);
    return;
  }
  const Type& r = v.givenTensor(0);
  bool fits = r.dtype() == acc && r.rank() == x.rank();
  for (int64_t d = 0; fits && d < x.rank(); ++d) {
    int64_t to = r.dim(d);
    if (d != dim)
      fits = to == x.dim(d);
    else
      fits = to == 0 ? from == 0 : from % to == 0 && (from / to) % group.unit == 0;
  }
  v.check(fits, [&] { return "result has type " + r.str() + ", which is not " + because(); });
}

void collectiveReduceRule(InferContext& v) {
  checkReplicaGroups(v, true);
  DType acc = checkCollectiveBody(v);
  v.infer(0, Type::tensor(acc, v.operandType(0).shape()),
          [&] { return "the operand shape with the body's element type"; });
}

void allToAllRule(InferContext& v) {
  std::optional<int64_t> groupSize = checkReplicaGroups(v, false);
  int64_t split = v.integer("split_dimension");
  int64_t concat = v.integer("concat_dimension");
  int64_t count = v.integer("split_count");
  v.check(count > 0, [&] { return "split_count must be positive, got " + std::to_string(count); });
  if (groupSize)
    v.check(*groupSize == count, [&] {
      return "replica groups have " + std::to_string(*groupSize) + " members, but split_count is " +
             std::to_string(count);
    });
  for (size_t i = 0; i < v.numOperands(); ++i) {
    const Type& x = v.tensorOperand(i);
    checkDimIndex(v, "split_dimension", split, x);
    checkDimIndex(v, "concat_dimension", concat, x);
    Shape shape = x.shape();
    v.check(shape[static_cast<size_t>(split)] % count == 0, [&] {
      return "split dimension " + std::to_string(split) + " of " + x.str() +
             " is not divisible by split_count " + std::to_string(count);
    });
    if (split != concat) {
      shape[static_cast<size_t>(split)] /= count;
      shape[static_cast<size_t>(concat)] = satMul(shape[static_cast<size_t>(concat)], count);
    }
    v.infer(i, Type::tensor(x.dtype(), shape), [&] {
      return "operand " + x.str() + " split " + std::to_string(count) + " ways along " + std::to_string(split) +
             " and concatenated along " + std::to_string(concat);
    });
  }
}

// source_target_pairs: [k, 2], each process sends at most once and receives at most once.
void checkSourceTargetPairs(const InferContext& v) {
  Matrix m = matrixAttr(v, "source_target_pairs");
  v.check(m.cols == 2 || m.values.empty(), [&] {
    return "source_target_pairs must have shape [k, 2], got [" + std::to_string(m.rows) + ", " + std::to_string(m.cols) +
           "]";
  });
  std::vector<int64_t> sources, targets;
  for (int64_t r = 0; r < m.rows && m.cols == 2; ++r) {
    sources.push_back(m.values[static_cast<size_t>(2 * r)]);
    targets.push_back(m.values[static_cast<size_t>(2 * r + 1)]);
  }
  for (int64_t id : m.values)
    v.check(id >= 0, [&] { return "source_target_pairs holds the invalid process id " + std::to_string(id); });
  v.check(allUnique(sources),
          [&] { return "source_target_pairs sources " + shapeStr(sources) + " repeat a process"; });
  v.check(allUnique(targets),
          [&] { return "source_target_pairs targets " + shapeStr(targets) + " repeat a process"; });
}

void collectivePermuteRule(InferContext& v) {
  checkSourceTargetPairs(v);
  const Type& x = v.tensorOperand(0);
  v.infer(0, x, [&] { return "the operand type"; });
}

void collectiveBroadcastRule(InferContext& v) {
  checkReplicaGroups(v, true);
  size_t n = v.numOperands();
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
  for (size_t i = 0; i < data; ++i)
    v.infer(i, v.tensorOperand(i), [&] { return "the operand type"; });
}

// Token-threaded ops: data values are tensors and the token comes last.
void checkDataThenToken(const InferContext& v, const TypeList& types, const std::string& what) {
  v.check(!types.empty() && types.back().isToken(),
          [&] { return "the last of its " + what + " must be a !stablehlo.token"; });
  for (size_t i = 0; i + 1 < types.size(); ++i)
    v.check(types[i].isTensor(),
            [&] { return what + " " + std::to_string(i) + " must be a tensor, got " + types[i].str(); });
}

void inferTokenResult(InferContext& v) {
  v.infer(0, Type::token(), [] { return "a !stablehlo.token"; });
}

// The results of recv and infeed are parameters (what arrives), then a token.
TypeList givenResults(InferContext& v) {
  TypeList types;
  for (size_t i = 0; i < v.givenCount(); ++i) types.push_back(v.given(i));
  return types;
}

// C5 of send/recv: a host transfer travels on a host channel and a device transfer on a
// device channel (channel type 1 is device-to-device, 2 device-to-host, 3 host-to-device;
// 0 leaves it unset). The spec names DEVICE_TO_HOST for recv as well, but a recv from
// the host is HOST_TO_DEVICE in HLO and in the conformance files.
void checkChannelType(const InferContext& v, int64_t hostType) {
  int64_t type = ChannelHandle::fromAttr(v.attr("channel_handle")).type;
  bool host = v.attrOrDefault("is_host_transfer").asBool();
  if (host)
    v.check(type == 0 || type == hostType, [&] {
      return "a host transfer needs channel type " + std::to_string(hostType) + ", got " + std::to_string(type);
    });
  else
    v.check(type == 0 || type == 1, [&] {
      return "a device transfer needs channel type 1 (DEVICE_TO_DEVICE), got " + std::to_string(type);
    });
  if (v.has("source_target_pairs")) checkSourceTargetPairs(v);
}

void sendRule(InferContext& v) {
  checkDataThenToken(v, v.operandTypes(), "operands");
  inferTokenResult(v);
  checkChannelType(v, 2);
}

void recvRule(InferContext& v) {
  v.check(v.operandType(0).isToken(),
          [&] { return "operand must be a !stablehlo.token, got " + v.operandType(0).str(); });
  checkDataThenToken(v, givenResults(v), "results");
  checkChannelType(v, 3);
}

void infeedRule(InferContext& v) {
  v.check(v.operandType(0).isToken(),
          [&] { return "operand must be a !stablehlo.token, got " + v.operandType(0).str(); });
  checkDataThenToken(v, givenResults(v), "results");
}

void outfeedRule(InferContext& v) {
  checkDataThenToken(v, v.operandTypes(), "operands");
  inferTokenResult(v);
}

void afterAllRule(InferContext& v) {
  for (size_t i = 0; i < v.numOperands(); ++i)
    v.check(v.operandType(i).isToken(), [&] {
      return "operand " + std::to_string(i) + " must be a !stablehlo.token, got " + v.operandType(i).str();
    });
  inferTokenResult(v);
}

void processIdRule(InferContext& v) {
  v.infer(0, Type::scalar(DType::U32), [] { return "process ids are tensor<ui32>"; });
}

}  // namespace

void addCollectiveRules(RuleTable& table) {
  namespace O = ops;
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
