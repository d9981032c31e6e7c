// Kernels of the collectives (all_gather, all_reduce, all_to_all, reduce_scatter,
// collective_permute/broadcast/reduce): each process's pieces exchanged with its group
// (collective_groups.h) and combined in group order. The orchestration (run_parallel)
// and the channel ops are in communication.cc.
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

// ---- tensor pieces ----------------------------------------------------------------------

// Every element's bytes (a splat literal stores only one).
Literal expanded(const Literal& lit) {
  Literal copy = lit;
  copy.denseStorage();
  return copy;
}

int64_t product(const Shape& shape, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to; ++d) n *= shape[d];
  return n;
}

// Part `k` of `count` equal parts of `lit` along `dim`.
Literal splitPart(const Literal& lit, int64_t dim, int64_t count, int64_t k) {
  Literal full = expanded(lit);
  const Shape& shape = full.shape();
  size_t d = static_cast<size_t>(dim);
  Shape partShape = shape;
  partShape[d] /= count;
  Literal part(Type::tensor(full.dtype(), partShape));
  size_t width = static_cast<size_t>(storageBytes(full.dtype()));
  size_t inner = static_cast<size_t>(product(shape, d + 1, shape.size())) * width;
  size_t chunk = static_cast<size_t>(partShape[d]) * inner;
  size_t row = static_cast<size_t>(shape[d]) * inner;
  int64_t outer = product(shape, 0, d);
  if (chunk == 0) return part;
  uint8_t* out = part.mutableStorage();
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out + static_cast<size_t>(o) * chunk,
                full.storage() + static_cast<size_t>(o) * row + static_cast<size_t>(k) * chunk,
                chunk);
  return part;
}

// The parts joined along `dim` in order.
Literal concatenate(const std::vector<Literal>& parts, int64_t dim) {
  std::vector<Literal> full;
  for (const Literal& p : parts) full.push_back(expanded(p));
  size_t d = static_cast<size_t>(dim);
  Shape shape = full.at(0).shape();
  shape[d] = 0;
  for (const Literal& p : full) shape[d] += p.shape()[d];
  Literal result(Type::tensor(full[0].dtype(), shape));
  size_t width = static_cast<size_t>(storageBytes(result.dtype()));
  size_t inner = static_cast<size_t>(product(shape, d + 1, shape.size())) * width;
  int64_t outer = product(shape, 0, d);
  if (result.type().byteSize() == 0) return result;
  uint8_t* out = result.mutableStorage();
  for (int64_t o = 0; o < outer; ++o) {
    for (const Literal& p : full) {
      size_t chunk = static_cast<size_t>(p.shape()[d]) * inner;
      if (chunk == 0) continue;
      std::memcpy(out, p.storage() + static_cast<size_t>(o) * chunk, chunk);
      out += chunk;
    }
  }
  return result;
}

// to_destination_type for the promotable element types a collective body may take.
Literal convertTo(const Literal& lit, DType to) {
  DType from = lit.dtype();
  if (from == to) return lit;
  Literal out(lit.type().withDType(to));
  for (int64_t i = 0, n = lit.numElements(); i < n; ++i) {
    if (isComplex(to))
      out.setComplex(i, isComplex(from) ? lit.complexAt(i) : std::complex<double>(lit.floatAt(i)));
    else if (isFloat(to))
      out.setFloat(i, isFloat(from)         ? lit.floatAt(i)
                      : isUnsignedInt(from) ? static_cast<double>(lit.uintAt(i))
                                            : static_cast<double>(lit.intAt(i)));
    else
      out.setInt(i, lit.intAt(i));
  }
  return out;
}

// Element-wise body(acc, x) with the op's one-result reduction region: a typed loop
// when the body is one binary elementwise op (fold.h), which gives the same bits as
// running the region per element, at memory speed.
Literal combine(const Op& op, const Literal& acc, const Literal& x, EvalContext& ctx) {
  Literal out(acc.type());
  bool swapped = false;
  FoldKind kind = simpleBinaryBody(op.region(0), swapped);
  if (kind != FoldKind::None && op.region(0).argument(0)->type().dtype() == acc.dtype()) {
    const DType dtype = acc.dtype();
    visitTypedFold(dtype, kind, [&](auto tag, auto k) {
      using T = typename decltype(tag)::type;
      constexpr FoldKind K = decltype(k)::value;
      Reader<T> a(acc), b(x);
      Writer<T> w(out);
      for (int64_t i = 0, n = acc.numElements(); i < n; ++i)
        w.set(i, roundToStorage(swapped ? interp::combine<K>(b[i], a[i]) : interp::combine<K>(a[i], b[i]), dtype));
    });
    return out;
  }
  for (int64_t i = 0, n = acc.numElements(); i < n; ++i) {
    HostValues r = ctx.runRegion(op.region(0), {elementAt(acc, i), elementAt(x, i)});
    setElement(out, i, r.at(0).tensor());
  }
  return out;
}

// Operand `i` of every member reduced in group order: ((v0 + v1) + v2) + ...
Literal reduceAll(const Op& op, const std::vector<HostValues>& all, size_t i, DType acc,
                  EvalContext& ctx) {
  Literal result = convertTo(all[0][i].tensor(), acc);
  for (size_t k = 1; k < all.size(); ++k) {
    ctx.checkTime();
    result = combine(op, result, convertTo(all[k][i].tensor(), acc), ctx);
  }
  return result;
}

DType resultDType(const Op& op, size_t i) {
  return op.result(i)->type().dtype();
}

Literal zerosLike(const Op& op, size_t result) {
  return Literal(op.result(result)->type());
}

// ---- kernels ----------------------------------------------------------------------------

// The results a collective computed must have the op's result types: the sizes depend on
// the group sizes, which only the grid knows (the verifier cannot check them).
HostValues checkedResults(const Op& op, HostValues results) {
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].type() != op.result(i)->type())
      runtimeError(op, "result " + std::to_string(i) + " would be " + results[i].type().str() +
                           " with the process group of this grid, but its type is " + op.result(i)->type().str());
  return results;
}

HostValues allGather(const Op& op, const HostValues& v, EvalContext& ctx) {
  ProcessContext& self = requireProcess(op, ctx);
  ProcessGroup group = requireGroup(op, reductionMode(op), self);
  std::vector<HostValues> all = exchange(op, self, group, v);
  int64_t dim = op.attr("all_gather_dim").asInt();
  HostValues results;
  for (size_t i = 0; i < v.size(); ++i) {
    std::vector<Literal> parts;
    for (const HostValues& member : all) parts.push_back(member[i].tensor());
    results.push_back(concatenate(parts, dim));
  }
  return checkedResults(op, std::move(results));
}

// all_reduce whose body is one binary op on the operands' own dtype (stored natively):
// the members share the work. The first member's contribution carries the outputs, one
// buffer per operand that every member holds after the exchange; member k folds
// elements [k n / N, (k + 1) n / N) of every operand into them, in group order as
// reduceAll does, and a second rendezvous says that all parts are written. Each member
// so reads its share of the inputs once, instead of every member reading all of them.
// Only where the processes share memory (not across OS processes).
std::optional<HostValues> allReduceTogether(const Op& op, const HostValues& v, ProcessContext& self,
                                            const ProcessGroup& group) {
  bool swapped = false;
  const FoldKind kind = simpleBinaryBody(op.region(0), swapped);
  if (kind == FoldKind::None || group.size() < 2 || !self.grid().sharesMemory()) return std::nullopt;
  const DType body = op.region(0).argument(0)->type().dtype();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].tensor().dtype() != body || resultDType(op, i) != body || !isNativeStorage(body)) return std::nullopt;
  const size_t me = indexIn(group, self.id()), members = group.size();
  HostValues mine = v;
  for (size_t i = 0; i < v.size(); ++i) {
    // The members write every element of the outputs before anyone reads them: their
    // memory is not zeroed first (a freed value's is taken as it is).
    const Type& type = op.result(i)->type();
    mine.push_back(me == 0 ? Literal::fromStorage(type, bytesToOverwrite(static_cast<size_t>(type.byteSize())))
                           : Literal(Type::scalar(body)));
  }
  std::vector<HostValues> all = exchange(op, self, group, std::move(mine));
  HostValues results;
  for (size_t i = 0; i < v.size(); ++i) {
    Literal out = all[0][v.size() + i].tensor();
    const int64_t n = out.numElements();
    const int64_t begin = n * static_cast<int64_t>(me) / static_cast<int64_t>(members);
    const int64_t end = n * static_cast<int64_t>(me + 1) / static_cast<int64_t>(members);
    // The members write disjoint parts of one shared buffer: through its storage, not
    // mutableStorage(), which would copy it.
    uint8_t* data = const_cast<uint8_t*>(out.storage());
    std::vector<Literal> inputs;  // dense (a splat operand is expanded)
    for (const HostValues& member : all) inputs.push_back(expanded(member[i].tensor()));
    // Native storage (checked above): one T per element.
    visitTypedFold(body, kind, [&](auto tag, auto k) {
      using T = typename decltype(tag)::type;
      constexpr FoldKind K = decltype(k)::value;
      T* acc = reinterpret_cast<T*>(data);
      // Blocks that stay in cache while each member's part is folded in, in group order.
      constexpr int64_t kBlock = 4096;
      for (int64_t b = begin; b < end; b += kBlock) {
        const int64_t stop = std::min(end, b + kBlock);
        std::memcpy(acc + b, inputs[0].storage() + static_cast<size_t>(b) * sizeof(T),
                    static_cast<size_t>(stop - b) * sizeof(T));
        for (size_t m = 1; m < members; ++m) {
          const T* x = reinterpret_cast<const T*>(inputs[m].storage());
          for (int64_t e = b; e < stop; ++e)
            acc[e] = swapped ? interp::combine<K>(x[e], acc[e]) : interp::combine<K>(acc[e], x[e]);
        }
      }
    });
    results.push_back(std::move(out));
  }
  self.grid().rendezvous(self, rendezvousKey(op) + " written", group, {});
  return results;
}

HostValues allReduce(const Op& op, const HostValues& v, EvalContext& ctx) {
  ProcessContext& self = requireProcess(op, ctx);
  ProcessGroup group = requireGroup(op, reductionMode(op), self);
  if (std::optional<HostValues> results = allReduceTogether(op, v, self, group)) return std::move(*results);
  std::vector<HostValues> all = exchange(op, self, group, v);
  HostValues results;
  for (size_t i = 0; i < v.size(); ++i)
    results.push_back(reduceAll(op, all, i, resultDType(op, i), ctx));
  return results;
}

HostValues reduceScatter(const Op& op, const HostValues& v, EvalContext& ctx) {
  ProcessContext& self = requireProcess(op, ctx);
  ProcessGroup group = requireGroup(op, reductionMode(op), self);
  std::vector<HostValues> all = exchange(op, self, group, v);
  Literal reduced = reduceAll(op, all, 0, resultDType(op, 0), ctx);
  int64_t dim = op.attr("scatter_dimension").asInt();
  int64_t n = static_cast<int64_t>(group.size());
  if (reduced.shape()[static_cast<size_t>(dim)] % n != 0)
    runtimeError(op, "scatter dimension " + std::to_string(dim) + " of " + reduced.type().str() +
                         " does not split into " + std::to_string(n) + " parts");
  return checkedResults(op, {splitPart(reduced, dim, n, static_cast<int64_t>(indexIn(group, self.id())))});
}

HostValues allToAll(const Op& op, const HostValues& v, EvalContext& ctx) {
  ProcessContext& self = requireProcess(op, ctx);
  ProcessGroup group = requireGroup(op, channelMode(op), self);
  int64_t count = op.attr("split_count").asInt();
  if (count != static_cast<int64_t>(group.size()))
    runtimeError(op, "split_count is " + std::to_string(count) + ", but the process group has " +
                         std::to_string(group.size()) + " processes");
  std::vector<HostValues> all = exchange(op, self, group, v);
  int64_t splitDim = op.attr("split_dimension").asInt();
  int64_t concatDim = op.attr("concat_dimension").asInt();
  int64_t me = static_cast<int64_t>(indexIn(group, self.id()));
  HostValues results;
  for (size_t i = 0; i < v.size(); ++i) {
    std::vector<Literal> parts;
    for (const HostValues& sender : all)
      parts.push_back(splitPart(sender[i].tensor(), splitDim, count, me));
    results.push_back(concatenate(parts, concatDim));
  }
  return checkedResults(op, std::move(results));
}

// Each (source, target) pair is a group of two per partition (or replica) line; the
// pairs meet one after another in list order, which every process shares, so no
// process waits on a pair whose other member waits on an earlier one.
HostValues collectivePermute(const Op& op, const HostValues& v, EvalContext& ctx) {
  ProcessContext& self = requireProcess(op, ctx);
  GroupMode mode = channelMode(op);
  std::vector<std::vector<int64_t>> pairs = idRows(op, "source_target_pairs");
  for (const auto& pair : pairs)
    if (pair.size() != 2) runtimeError(op, "source_target_pairs must hold pairs of process ids");
  HostValues result = {zerosLike(op, 0)};
  for (const ProcessGroup& pair : processGroups(op, mode, pairs, self.grid())) {
    ProcessId source = pair[0], target = pair[1];
    if (source != self.id() && target != self.id()) continue;
    ProcessGroup group = source == target ? ProcessGroup{source} : pair;
    std::vector<HostValues> all = exchange(op, self, group, v);
    if (target == self.id()) result = all[0];
  }
  return result;
}

HostValues collectiveBroadcast(const Op& op, const HostValues& v, EvalContext& ctx) {
  ProcessContext& self = requireProcess(op, ctx);
  bool dynamicRoot = static_cast<bool>(op.attr("has_dynamic_root"));
  size_t data = dynamicRoot ? v.size() - 1 : v.size();
  std::optional<ProcessGroup> group = groupOf(op, channelMode(op), self);
  HostValues results;
  if (!group) {
    for (size_t j = 0; j < data; ++j) results.push_back(zerosLike(op, j));
    return results;
  }
  std::vector<HostValues> all = exchange(
      op, self, *group, HostValues(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(data)));
  for (size_t j = 0; j < data; ++j) {
    int64_t root = dynamicRoot ? v.back().tensor().intAt(static_cast<int64_t>(j)) : 0;
    if (root < 0 || root >= static_cast<int64_t>(group->size()))
      runtimeError(op, "root " + std::to_string(root) + " of operand " + std::to_string(j) +
                           " is outside the process group of " + std::to_string(group->size()));
    results.push_back(all[static_cast<size_t>(root)][j]);
  }
  return results;
}

// The first member of each group (the root) gets the reduction; everyone else zeros.
HostValues collectiveReduce(const Op& op, const HostValues& v, EvalContext& ctx) {
  ProcessContext& self = requireProcess(op, ctx);
  std::optional<ProcessGroup> group = groupOf(op, channelMode(op), self);
  if (!group) return {zerosLike(op, 0)};
  std::vector<HostValues> all = exchange(op, self, *group, v);
  if ((*group)[0] != self.id()) return {zerosLike(op, 0)};
  return {reduceAll(op, all, 0, resultDType(op, 0), ctx)};
}

}  // namespace

void addCollectiveKernels(KernelTable& t) {
  t.set(ops::AllGather, &allGather);
  t.set(ops::AllReduce, &allReduce);
  t.set(ops::ReduceScatter, &reduceScatter);
  t.set(ops::AllToAll, &allToAll);
  t.set(ops::CollectivePermute, &collectivePermute);
  t.set(ops::CollectiveBroadcast, &collectiveBroadcast);
  t.set(ops::CollectiveReduce, &collectiveReduce);
}

}  // namespace kiln::interp
