// Rules of the collectives that move or sum values across processes: all_reduce,
// reduce_scatter and collective_reduce with a summing body, all_gather, all_to_all,
// collective_permute and collective_broadcast.
// Each is linear in its operands, so its tangent is the same collective of the operands'
// tangents. Its transpose is again a collective, under the pairing summed over every
// process (the transposes of JAX's psum, all_gather, psum_scatter, all_to_all, ppermute):
// - all_reduce (sum): every member gets the sum of its group's operands, so each operand's
//   cotangent is the sum of the group's result cotangents: the same all_reduce;
// - all_gather lays the group's operands side by side along a dimension on every member,
//   so a member's operand collects, from every member's result cotangent, the part at its
//   own place in the group: a summing reduce_scatter over the same groups and dimension;
//   and the transpose of reduce_scatter is the all_gather back;
// - all_to_all sends part j of member i's split dimension to member j, as part i of its
//   concat dimension; the transpose sends every part back: the two dimensions swapped;
// - collective_permute sends the source's operand to the target; the transpose sends the
//   target's cotangent back to the source: every pair reversed (a process that sends to
//   no one gets a zero cotangent, as one that receives from no one gets a zero result);
// - collective_broadcast gives every member the root's (its group's first member's)
//   operand, and a summing collective_reduce gives the root its group's sum and the
//   others zeros: each is the other's transpose (the root's operand collects every
//   member's result cotangent; every member's operand reaches the root's result, so
//   its cotangent is the root's result cotangent). A process outside every group gets
//   zeros from both, and its operand reaches no result, so that pairs up too.
// The groups, the channel and use_global_device_ids stay as they are, so a transposed
// collective meets the same processes as the original. Every process runs the same
// program, so a symbolic zero that skips a collective skips it on every process alike.
// A body that is not a sum (max, min, a product) is not linear: its tangent would follow
// the process whose value wins, which is not written; those are refused.
//
// Batching: the batch dimension in front is one more dimension the collective does not
// touch, so the dimension attributes move past it and every member's batch stays its own.
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

namespace O = ops;

// Refuses a reduction body that is not a sum: only then is the collective linear.
void requireSum(const Op& op, const char* what) {
  const Op* f = binaryBodyOp(op.region(0));
  if (f && f->is(O::Add)) return;
  if (f && (f->is(O::Maximum) || f->is(O::Minimum)))
    unsupportedRule(op, what,
                    "a " + std::string(f->name()) +
                        " body is not linear: its tangent would be that of the process whose value wins");
  unsupportedRule(op, what, "a body other than a sum is not linear");
}

// The same collective of the tangents; a variadic one moves all its operands together,
// so a zero tangent travels as zeros. A dynamic root stays what it is.
std::vector<Value*> collectiveJvp(JvpArgs& a) {
  if (a.op.numRegions()) requireSum(a.op, "jvp");
  std::vector<Value*> operands;
  for (size_t i = 0; i < a.x.size(); ++i)
    operands.push_back(i < dataOperands(a.op) ? orZeros(a.b, a.t[i], a.x[i]) : a.x[i]);
  return rebuilt(a.b, a.op, operands, a.op.attrs(), a.op.resultTypes());
}

// The result cotangents, zeros for the symbolic ones (for the variadic collectives).
std::vector<Value*> resultCotangents(TransposeArgs& a) {
  std::vector<Value*> cts;
  for (size_t i = 0; i < a.op.numResults(); ++i)
    cts.push_back(a.ct[i] ? a.ct[i] : zeros(a.b, a.op.result(i)->type()));
  return cts;
}

// `cts` as the cotangents of the linear operands: in each operand's element type (a
// summing body may accumulate in a wider one; the transpose of that widening narrows).
std::vector<Value*> forOperands(TransposeArgs& a, std::vector<Value*> cts) {
  for (size_t i = 0; i < cts.size(); ++i) {
    DType want = a.op.operand(i)->type().dtype();
    if (!a.linear[i]) cts[i] = nullptr;
    else if (cts[i] && cts[i]->type().dtype() != want) cts[i] = a.b.convert(cts[i], want);
  }
  return cts;
}

// `type`'s shape in element type `dtype`.
Type withDType(const Type& type, DType dtype) { return Type::tensor(dtype, type.shape()); }

// The op's attributes with `from` renamed `to` (all_gather_dim <-> scatter_dimension).
NamedAttrList renamed(const Op& op, const char* from, const char* to) {
  NamedAttrList attrs = op.attrs();
  Attribute value = findAttr(attrs, from);
  removeAttr(attrs, from);
  setAttr(attrs, to, value);
  return attrs;
}

std::vector<Value*> allReduceTranspose(TransposeArgs& a) {
  requireSum(a.op, "transpose");
  return forOperands(a, rebuilt(a.b, a.op, resultCotangents(a), a.op.attrs()));
}

// For each linear operand with a cotangent, one `code` collective (reduce_scatter or
// collective_reduce: they take one operand) that sums its cotangent, with `attrs`.
std::vector<Value*> summedPerOperand(TransposeArgs& a, OpCode code, const NamedAttrList& attrs) {
  std::vector<Value*> cts(a.op.numOperands(), nullptr);
  for (size_t i = 0; i < cts.size(); ++i) {
    if (!a.linear[i] || !a.ct[i]) continue;
    Type e = Type::scalar(a.ct[i]->type().dtype());
    std::vector<std::unique_ptr<Region>> body;
    body.push_back(a.b.buildRegion({e, e}, [](Builder& c, const std::vector<Value*>& v) {
      return std::vector<Value*>{c.binary(O::Add, v[0], v[1])};
    }));
    cts[i] = a.b.create(code, {a.ct[i]}, attrs, std::move(body), {a.op.operand(i)->type()})->result();
  }
  return cts;
}

std::vector<Value*> allGatherTranspose(TransposeArgs& a) {
  return summedPerOperand(a, O::ReduceScatter, renamed(a.op, "all_gather_dim", "scatter_dimension"));
}

std::vector<Value*> reduceScatterTranspose(TransposeArgs& a) {
  requireSum(a.op, "transpose");
  NamedAttrList attrs = renamed(a.op, "scatter_dimension", "all_gather_dim");
  // The gathered size is given: with a channel and no global ids the group spans every
  // partition, a size only the run knows.
  Type gathered = withDType(a.op.operand(0)->type(), a.ct[0]->type().dtype());
  return forOperands(a, {a.b.create(O::AllGather, {a.ct[0]}, attrs, {}, {gathered})->result()});
}

std::vector<Value*> allToAllTranspose(TransposeArgs& a) {
  NamedAttrList attrs = a.op.attrs();
  setAttr(attrs, "split_dimension", a.op.attr("concat_dimension"));
  setAttr(attrs, "concat_dimension", a.op.attr("split_dimension"));
  TypeList types;
  for (size_t i = 0; i < a.op.numOperands(); ++i) types.push_back(a.op.operand(i)->type());
  return forOperands(a, a.b.create(O::AllToAll, resultCotangents(a), attrs, {}, types)->results());
}

std::vector<Value*> collectivePermuteTranspose(TransposeArgs& a) {
  const Literal& pairs = a.op.attr("source_target_pairs").asDense();
  Literal reversed(pairs.type());
  for (int64_t k = 0; k + 1 < pairs.numElements(); k += 2) {
    reversed.setInt(k, pairs.intAt(k + 1));
    reversed.setInt(k + 1, pairs.intAt(k));
  }
  NamedAttrList attrs = a.op.attrs();
  setAttr(attrs, "source_target_pairs", Attribute::dense(reversed));
  return {a.b.create(O::CollectivePermute, {a.ct[0]}, attrs, {}, {a.op.operand(0)->type()})->result()};
}

// The group attributes of `op` for its transpose, another collective over the same
// processes (collective_broadcast and collective_reduce read the same two).
NamedAttrList groupAttrs(const Op& op) {
  NamedAttrList attrs;
  for (const char* name : {"replica_groups", "channel_handle"})
    if (Attribute v = op.attr(name)) setAttr(attrs, name, v);
  return attrs;
}

std::vector<Value*> collectiveBroadcastTranspose(TransposeArgs& a) {
  if (a.op.attr("has_dynamic_root")) unsupportedRule(a.op, "transpose", "a dynamic root");
  return summedPerOperand(a, O::CollectiveReduce, groupAttrs(a.op));
}

std::vector<Value*> collectiveReduceTranspose(TransposeArgs& a) {
  requireSum(a.op, "transpose");
  return forOperands(a, {a.b.create(O::CollectiveBroadcast, {a.ct[0]}, groupAttrs(a.op), {}, {a.ct[0]->type()})->result()});
}

// ---- batching ----

// Every operand batched (a shared one broadcast: a variadic collective moves its
// operands alike), the dimension attributes past the batch. Dynamic roots are one per
// operand, whatever the batch: batched ones would need a root per slice.
std::vector<Value*> collectiveBatch(BatchArgs& a) {
  std::vector<Value*> operands;
  for (size_t i = 0; i < a.x.size(); ++i) {
    if (i < dataOperands(a.op)) operands.push_back(batchedValue(a.b, a.x[i], a.batched[i], a.size));
    else if (a.batched[i]) unsupportedRule(a.op, "vmap", "batched dynamic roots");
    else operands.push_back(a.x[i]);
  }
  NamedAttrList attrs = a.op.attrs();
  for (const char* name : {"all_gather_dim", "scatter_dimension", "split_dimension", "concat_dimension"})
    if (Attribute d = findAttr(attrs, name)) setAttr(attrs, name, Attribute::integer(d.asInt() + 1));
  TypeList types;
  for (Value* r : a.op.results()) types.push_back(Type::tensor(r->type().dtype(), batchedShape(a.size, r->type().shape())));
  return rebuilt(a.b, a.op, operands, attrs, types);
}

}  // namespace

void addCollectiveRules(OpTable<OpRules>& t) {
  t[O::AllReduce] = {&collectiveJvp, &allReduceTranspose, nullptr, &collectiveBatch};
  t[O::AllGather] = {&collectiveJvp, &allGatherTranspose, nullptr, &collectiveBatch};
  t[O::ReduceScatter] = {&collectiveJvp, &reduceScatterTranspose, nullptr, &collectiveBatch};
  t[O::AllToAll] = {&collectiveJvp, &allToAllTranspose, nullptr, &collectiveBatch};
  t[O::CollectivePermute] = {&collectiveJvp, &collectivePermuteTranspose, nullptr, &collectiveBatch};
  t[O::CollectiveBroadcast] = {&collectiveJvp, &collectiveBroadcastTranspose, nullptr, &collectiveBatch};
  t[O::CollectiveReduce] = {&collectiveJvp, &collectiveReduceTranspose, nullptr, &collectiveBatch};
}

}  // namespace kiln::transforms
