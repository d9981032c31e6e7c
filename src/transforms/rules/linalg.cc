// Autodiff rules of dot_general and dot: the product rule, and the transposes that turn
// a cotangent of the result into cotangents of lhs and rhs (each a dot_general of the
// cotangent with the other operand, transposed into the operand's layout).
#include <algorithm>

#include "ir/attr_records.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

using O = OpCode;

// Dots are always rebuilt as dot_general (stablehlo.dot is one with implied dimensions).
Value* dot(Builder& b, Value* lhs, Value* rhs, const DotDims& dims, DType result) {
  return b.dotGeneral(lhs, rhs, dims, result);
}

std::vector<Value*> dotJvp(JvpArgs& a) {
  DotDims d = DotDims::of(a.op);
  DType out = a.y[0]->type().dtype();
  Value* l = a.t[0] ? dot(a.b, a.t[0], a.x[1], d, out) : nullptr;
  Value* r = a.t[1] ? dot(a.b, a.x[0], a.t[1], d, out) : nullptr;
  return {addTangents(a.b, l, r)};
}

Dims range(int64_t first, int64_t count) {
  Dims out;
  for (int64_t i = 0; i < count; ++i) out.push_back(first + i);
  return out;
}

int64_t indexIn(const Dims& dims, int64_t d) {
  return static_cast<int64_t>(std::find(dims.begin(), dims.end(), d) - dims.begin());
}

// The cotangent of one operand ("this", with batch dims `tb`, contracting `tc`, free
// `tf`) from the result's cotangent (dims [batch, lhs free, rhs free]; `freeFirst` is
// where this operand's free dims start in it) and the other operand (`ob`, `oc`, `of`).
// ct·other contracts the other's free dims, leaving [batch, this free, other's
// contracting in ascending order], which pair with this operand's contracting dims.
Value* operandCotangent(Builder& b, Value* ct, Value* other, const Type& self, const Dims& tb,
                        const Dims& tc, const Dims& tf, int64_t freeFirst, const Dims& ob,
                        const Dims& oc, const Dims& of) {
  const int64_t nb = static_cast<int64_t>(tb.size());
  DotDims d;
  d.lhsBatch = range(0, nb);
  d.rhsBatch = ob;
  d.lhsContracting = range(freeFirst, static_cast<int64_t>(of.size()));
  d.rhsContracting = of;
  Value* r = b.dotGeneral(ct, other, d, self.dtype());
  // Where each dimension of r belongs in this operand.
  Dims place = tb;
  place.insert(place.end(), tf.begin(), tf.end());
  Dims sortedContracting = oc;
  std::sort(sortedContracting.begin(), sortedContracting.end());
  for (int64_t c : sortedContracting) place.push_back(tc[static_cast<size_t>(indexIn(oc, c))]);
  Dims perm(place.size());
  for (size_t i = 0; i < place.size(); ++i) perm[static_cast<size_t>(place[i])] = static_cast<int64_t>(i);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  return identity ? r : b.transpose(r, perm);
}

// Puts the free dims of the operand being transposed right after the batch dims of
// ct; for rhs, whose free dims come after lhs's in the result, ct is first transposed
// so that they do.
std::vector<Value*> dotTranspose(TransposeArgs& a) {
  if (a.linear[0] && a.linear[1]) unsupportedRule(a.op, "transpose", "both operands are tangents");
  DotDims d = DotDims::of(a.op);
  const Type& lt = a.op.operand(0)->type();
  const Type& rt = a.op.operand(1)->type();
  Dims lf = d.lhsFree(lt.rank()), rf = d.rhsFree(rt.rank());
  const int64_t nb = static_cast<int64_t>(d.lhsBatch.size());
  const int64_t nlf = static_cast<int64_t>(lf.size()), nrf = static_cast<int64_t>(rf.size());
  if (a.linear[0]) {
    // ct [b, lf, rf] · rhs: contract ct's rf with rhs's free dims.
    return {operandCotangent(a.b, a.ct[0], a.x[1], lt, d.lhsBatch, d.lhsContracting, lf, nb + nlf, d.rhsBatch,
                             d.rhsContracting, rf),
            nullptr};
  }
  // ct [b, lf, rf] → [b, rf, lf], then the same with the roles swapped.
  Dims perm = range(0, nb);
  for (int64_t i = 0; i < nrf; ++i) perm.push_back(nb + nlf + i);
  for (int64_t i = 0; i < nlf; ++i) perm.push_back(nb + i);
  Value* ct = (nlf && nrf) ? a.b.transpose(a.ct[0], perm) : a.ct[0];
  return {nullptr, operandCotangent(a.b, ct, a.x[0], rt, d.rhsBatch, d.rhsContracting, rf, nb + nrf,
                                    d.lhsBatch, d.lhsContracting, lf)};
}

// Both batched: the batch is one more batch dimension of the dot, first in the result.
// One batched: it is a free dimension of that operand, moved to the front afterwards.
std::vector<Value*> dotBatch(BatchArgs& a) {
  DotDims d = DotDims::of(a.op);
  DType out = a.op.result(0)->type().dtype();
  const int64_t nb = static_cast<int64_t>(d.lhsBatch.size());
  DotDims e;
  e.lhsBatch = pastBatch(d.lhsBatch, a.batched[0] && a.batched[1]);
  e.rhsBatch = a.batched[1] ? pastBatch(d.rhsBatch, a.batched[0]) : d.rhsBatch;
  e.lhsContracting = a.batched[0] ? pastBatch(d.lhsContracting) : d.lhsContracting;
  e.rhsContracting = a.batched[1] ? pastBatch(d.rhsContracting) : d.rhsContracting;
  if (!a.batched[0]) e.lhsBatch = d.lhsBatch;
  Value* r = a.b.dotGeneral(a.x[0], a.x[1], e, out);
  if (a.batched[0] && a.batched[1]) return {r};
  // Where the batch dimension landed: the first free dimension of lhs (after the dot's
  // batch dimensions), or the first of rhs (after lhs's free ones).
  int64_t at = nb;
  if (!a.batched[0]) at += static_cast<int64_t>(d.lhsFree(a.op.operand(0)->type().rank()).size());
  if (at == 0) return {r};
  Dims perm = {at};
  for (int64_t i = 0; i < r->type().rank(); ++i)
    if (i != at) perm.push_back(i);
  return {a.b.transpose(r, perm)};
}

}  // namespace

void addLinalgRules(OpTable<OpRules>& t) {
  t[O::DotGeneral] = {&dotJvp, &dotTranspose, nullptr, &dotBatch};
  t[O::Dot] = {&dotJvp, &dotTranspose, nullptr, &dotBatch};
}

}  // namespace kiln::transforms
