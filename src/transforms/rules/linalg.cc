// Rules of the linear algebra ops (autodiff; batching of the dots):
// - dot_general and dot: the product rule, and the transposes that turn a cotangent of
//   the result into cotangents of lhs and rhs (each a dot_general of the cotangent with
//   the other operand, transposed into the operand's layout);
// - triangular_solve: linear in b (transposed by the solve with op(a) transposed), and
//   in a as JAX differentiates it: d(op(a)⁻¹) = -op(a)⁻¹·op(da)·op(a)⁻¹;
// - cholesky: JAX's rule (Murray, arXiv:1602.07527), dL = L·Φ(L⁻¹·dA·L⁻ᴴ) where Φ keeps
//   the lower triangle and halves the diagonal.
// jaxlib's LAPACK custom calls have their rules in lapack_calls.cc, built on the matrix
// helpers defined here (rules/matrix_math.h). Matrices are the last two dimensions; the
// leading ones are batch dimensions.
#include <algorithm>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"
#include "transforms/rules/matrix_math.h"

namespace kiln::transforms {
namespace {

namespace O = ops;

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

// The permutation that swaps the last two dimensions of a rank-`rank` tensor.
Dims swappedLastTwo(int64_t rank) {
  Dims perm = range(0, rank);
  std::swap(perm[static_cast<size_t>(rank - 2)], perm[static_cast<size_t>(rank - 1)]);
  return perm;
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

}  // namespace

// ---- matrix helpers (rules/matrix_math.h) ----

Dims leadingDims(int64_t count) { return range(0, count); }

Value* matrixTranspose(Builder& b, Value* x) { return b.transpose(x, swappedLastTwo(x->type().rank())); }
Value* adjoint(Builder& b, Value* x) { return conjugate(b, matrixTranspose(b, x)); }

// x·y for batches of matrices.
Value* matmul(Builder& b, Value* x, Value* y) {
  const int64_t rank = x->type().rank();
  DotDims d;
  d.lhsBatch = d.rhsBatch = range(0, rank - 2);
  d.lhsContracting = {rank - 1};
  d.rhsContracting = {rank - 2};
  return b.dotGeneral(x, y, d, x->type().dtype());
}

// Whether each element of a tensor of `shape` lies in the lower (upper) triangle from
// diagonal `k` on: column - row <= k (>= k).
Value* inTriangle(Builder& b, const Shape& shape, bool lower, int64_t k) {
  const Type ids = Type::tensor(DType::I64, shape);
  const int64_t rank = static_cast<int64_t>(shape.size());
  Value* offset = b.binary(O::Subtract, b.iota(ids, rank - 1), b.iota(ids, rank - 2));
  return b.compare(offset, b.splat(ids, static_cast<double>(k)), lower ? ComparisonDirection::LE : ComparisonDirection::GE);
}

Value* onDiagonal(Builder& b, const Shape& shape) {
  return b.binary(O::And, inTriangle(b, shape, true, 0), inTriangle(b, shape, false, 0));
}

Value* diagonalOf(Builder& b, Value* x) {
  const Type& t = x->type();
  Value* kept = b.select(onDiagonal(b, t.shape()), x, zeros(b, t));
  return b.reduce({kept}, {zeros(b, Type::scalar(t.dtype()))}, {t.rank() - 1},
                  [](Builder& c, const std::vector<Value*>& v) {
                    return std::vector<Value*>{c.binary(O::Add, v[0], v[1])};
                  })[0];
}

// x's lower (upper) triangle from diagonal k on, zeros elsewhere.
Value* triangle(Builder& b, Value* x, bool lower, int64_t k) {
  return b.select(inTriangle(b, x->type().shape(), lower, k), x, zeros(b, x->type()));
}

// Ones in the strict lower (upper) triangle, halves on the diagonal, zeros elsewhere, of
// `like`'s type: x times it is Φ(x) (lower), and S = it·t makes S + Sᴴ the Hermitian
// matrix t's triangle stands for.
Value* halvedTriangle(Builder& b, Value* like, bool lower) {
  const Type& type = like->type();
  Value* strict = inTriangle(b, type.shape(), lower, lower ? -1 : 1);
  return b.select(strict, b.splat(type, 1), b.select(onDiagonal(b, type.shape()), b.splat(type, 0.5), zeros(b, type)));
}


// Left side, op(a)·x = b: dx = op(a)⁻¹·(db - op(da)·x); right side, x·op(a) = b:
// dx = (db - x·op(da))·op(a)⁻¹. da counts only in the triangle the solve reads (without
// the diagonal when it is a unit one). One solve serves both tangents (null: zero).
Value* solveTangent(Builder& b, const Solve& s, Value* a, Value* x, Value* da, Value* db) {
  Value* rhs = db;
  if (da) {
    da = triangle(b, da, s.lower, s.unitDiagonal ? (s.lower ? -1 : 1) : 0);
    if (s.transpose != TransposeKind::NoTranspose) da = matrixTranspose(b, da);
    if (s.transpose == TransposeKind::Adjoint) da = conjugate(b, da);
    Value* change = b.unary(O::Negate, s.leftSide ? matmul(b, da, x) : matmul(b, x, da));
    rhs = addTangents(b, rhs, change);
  }
  return rhs ? s.apply(b, a, rhs) : nullptr;
}

// A = L·Lᴴ: dL = L·Φ(L⁻¹·dA·L⁻ᴴ). The op reads only one triangle of A (and the real part
// of its diagonal), as the Hermitian matrix it stands for, so dA is that triangle's: S + Sᴴ
// with S the triangle of the tangent, its diagonal halved. An upper factor U = Lᴴ is
// differentiated through L. The factor's other triangle is masked to zeros: the spec
// leaves it to the implementation.
Value* choleskyTangent(Builder& b, Value* a, Value* factor, Value* da, bool lower) {
  Value* half = b.binary(O::Multiply, da, halvedTriangle(b, a, lower));
  Value* dA = b.binary(O::Add, half, adjoint(b, half));
  factor = triangle(b, factor, lower, 0);
  Value* L = lower ? factor : adjoint(b, factor);
  Solve right{false, true, false, TransposeKind::Adjoint};   // x·Lᴴ = rhs
  Solve left{true, true, false, TransposeKind::NoTranspose};  // L·x = rhs
  Value* inner = left.apply(b, L, right.apply(b, L, dA));
  Value* dL = matmul(b, L, b.binary(O::Multiply, inner, halvedTriangle(b, a, true)));
  return lower ? dL : adjoint(b, dL);
}

namespace {

// ---- triangular_solve and cholesky ----

std::vector<Value*> triangularSolveJvp(JvpArgs& a) {
  return {solveTangent(a.b, Solve::of(a.op), a.x[0], a.y[0], a.t[0], a.t[1])};
}

// Linear in b: op(a)⁻¹ transposes to (op(a)ᵀ)⁻¹ on the same side. op(a)ᵀ is a's
// transpose for NO_TRANSPOSE, a for TRANSPOSE, and conj(a) for ADJOINT.
std::vector<Value*> triangularSolveTranspose(TransposeArgs& a) {
  if (a.linear[0]) unsupportedRule(a.op, "transpose", "the matrix a is a tangent");
  Solve s = Solve::of(a.op);
  Value* matrix = a.x[0];
  switch (s.transpose) {
    case TransposeKind::NoTranspose: s.transpose = TransposeKind::Transpose; break;
    case TransposeKind::Adjoint: matrix = conjugate(a.b, matrix); [[fallthrough]];
    default: s.transpose = TransposeKind::NoTranspose; break;
  }
  return {nullptr, s.apply(a.b, matrix, a.ct[0])};
}

std::vector<Value*> choleskyJvp(JvpArgs& a) {
  if (!a.t[0]) return {nullptr};
  return {choleskyTangent(a.b, a.x[0], a.y[0], a.t[0], a.op.attrOrDefault("lower").asBool())};
}

// Both batched: the batch is one more batch dimension of the dot, first in the result.
// One batched: it is a free dimension of that operand, moved to the front afterwards.
std::vector<Value*> dotBatch(BatchArgs& a) {
  DotDims d = DotDims::of(a.op);
  DType out = a.op.result(0)->type().dtype();
  const int64_t nb = static_cast<int64_t>(d.lhsBatch.size());
  const bool both = a.batched[0] && a.batched[1];
  // A batched operand's dimensions move past its batch dimension.
  auto past = [&](const Dims& dims, bool batched) { return batched ? pastBatch(dims, both) : dims; };
  DotDims e;
  e.lhsBatch = past(d.lhsBatch, a.batched[0]);
  e.rhsBatch = past(d.rhsBatch, a.batched[1]);
  e.lhsContracting = a.batched[0] ? pastBatch(d.lhsContracting) : d.lhsContracting;
  e.rhsContracting = a.batched[1] ? pastBatch(d.rhsContracting) : d.rhsContracting;
  Value* r = a.b.dotGeneral(a.x[0], a.x[1], e, out);
  if (both) return {r};
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
  t[O::TriangularSolve] = {&triangularSolveJvp, &triangularSolveTranspose, nullptr, &everyOperandBatched};
  t[O::Cholesky] = {&choleskyJvp, nullptr, nullptr, &everyOperandBatched};
}

}  // namespace kiln::transforms
