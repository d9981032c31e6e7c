// Autodiff rules of jaxlib's LAPACK custom calls (kernels/lapack/lapack_call.h), as JAX
// differentiates the functions that emit them: Cholesky (potrf), triangular solves
// (trsm), Hermitian eigendecompositions (syevd), LU (getrf), tridiagonal solves (gtsv)
// SVD (gesdd), with and without vectors, QR (geqrf, and orgqr / ungqr on its
// reflectors) and the eigenvalues of general matrices (geev). The Schur, Hessenberg and
// tridiagonal reductions (gees, gehrd, sytrd) have none, as in JAX, and are refused
// saying so; any other custom call is refused by its target.
#include <algorithm>
#include <cstdlib>

#include "ir/ops/stablehlo.h"
#include "kernels/lapack/lapack_call.h"
#include "transforms/op_rules.h"
#include "transforms/rules/matrix_math.h"

namespace kiln::transforms {
namespace {

namespace O = ops;

// The primal results are the call's own; the tangents are built from stablehlo ops,
// whose transposes reverse mode uses (gtsv's also from another gtsv call, with its own
// transpose below). Info outputs are integers, without tangents.

// potrf: the factor in the `uplo` triangle, the input's other triangle left as it was
// (LAPACK writes one triangle), so that one's tangent is the input's.
std::vector<Value*> potrfTangents(JvpArgs& a, const kernels::LapackCall& call) {
  const bool lower = call.uplo == 'L';
  Value* da = a.t[0];
  Value* factor = choleskyTangent(a.b, a.x[0], a.y[0], da, lower);
  Value* untouched = triangle(a.b, da, !lower, lower ? 1 : -1);
  return {a.b.binary(O::Add, triangle(a.b, factor, lower, 0), untouched), nullptr};
}

// trsm: x = α·op(a)⁻¹·b (left side) or α·b·op(a)⁻¹: dx = op(a)⁻¹·(α·db + dα·b - op(da)·x)
// (on the right side mirrored), α 1 when the call has no third operand.
std::vector<Value*> trsmTangents(JvpArgs& a, const kernels::LapackCall& call) {
  Builder& b = a.b;
  const TransposeKind kind = call.transpose == 'N'   ? TransposeKind::NoTranspose
                             : call.transpose == 'T' ? TransposeKind::Transpose
                                                     : TransposeKind::Adjoint;
  Solve s{call.side == 'L', call.uplo == 'L', call.diag == 'U', kind};
  const Shape& shape = a.x[1]->type().shape();
  Value* db = a.t[1];
  if (a.x.size() == 3) {
    if (db) db = b.binary(O::Multiply, db, b.broadcastInDim(a.x[2], shape, {}));
    if (a.t[2]) db = addTangents(b, db, b.binary(O::Multiply, a.x[1], b.broadcastInDim(a.t[2], shape, {})));
  }
  return {solveTangent(b, s, a.x[0], a.y[0], a.t[0], db)};
}

// The same call with backend_config's character attributes `set` (name, value) and
// results of `types`: the vectors a call without them needs for its derivative (JAX's
// rules compute them too).
std::vector<Value*> callWith(JvpArgs& a, const std::vector<std::pair<const char*, char>>& set, const TypeList& types) {
  NamedAttrList attrs = a.op.attrs();
  Attribute config = findAttr(attrs, "mhlo.backend_config");
  NamedAttrList fields = config ? config.fields() : NamedAttrList{};
  for (const auto& [name, value] : set) setAttr(fields, name, Attribute::integer(value, DType::U8));
  setAttr(attrs, "mhlo.backend_config", Attribute::dictionary(std::move(fields)));
  return rebuilt(a.b, a.op, a.x, std::move(attrs), types);
}
std::vector<Value*> callWithMode(JvpArgs& a, char mode, const TypeList& types) {
  return callWith(a, {{"mode", mode}}, types);
}

// syevd: A = V·diag(w)·Vᴴ from one triangle of A (as cholesky reads it). With
// M = Vᴴ·dA·V: dw = Re(diag M), dV = V·(F ∘ M), F_ij = 1/(w_j - w_i) off the diagonal and
// 0 on it (JAX's eigh rule; repeated eigenvalues give non-finite dV, as in JAX). Without
// vectors (mode 'N', whose first result is LAPACK's workspace: a program that reads it
// is refused) the rule computes them with a second call in mode 'V', as JAX's
// eigvalsh-through-eigh does.
std::vector<Value*> syevdTangents(JvpArgs& a, const kernels::LapackCall& call) {
  Builder& b = a.b;
  Value* V = a.y[0];
  Value* w = a.y[1];
  if (call.mode != 'V') {
    if (a.op.result(0)->hasUses()) unsupportedRule(a.op, "jvp", "a use of the workspace syevd returns without vectors");
    std::vector<Value*> withVectors = callWithMode(a, 'V', a.op.resultTypes());
    V = withVectors[0];
  }
  const bool lower = call.uplo == 'L';
  Value* half = b.binary(O::Multiply, a.t[0], halvedTriangle(b, a.x[0], lower));
  Value* dA = b.binary(O::Add, half, adjoint(b, half));
  const Type& vt = V->type();
  const int64_t rank = vt.rank();
  Value* M = matmul(b, matmul(b, adjoint(b, V), dA), V);
  Value* diagonal = onDiagonal(b, vt.shape());
  Value* dw = diagonalOf(b, M);
  if (isComplex(vt.dtype())) dw = b.unary(O::Real, dw);
  const Type& wt = w->type();
  Dims batch = leadingDims(rank - 2);
  Dims asColumns = batch, asRows = batch;  // w_j along the columns, w_i along the rows
  asColumns.push_back(rank - 1);
  asRows.push_back(rank - 2);
  const Shape& square = vt.shape();
  Value* gap = b.binary(O::Subtract, b.broadcastInDim(w, square, asColumns), b.broadcastInDim(w, square, asRows));
  const Type realSquare = Type::tensor(wt.dtype(), square);
  Value* F = b.select(diagonal, zeros(b, realSquare), b.binary(O::Divide, b.splat(realSquare, 1), gap));
  if (isComplex(vt.dtype())) F = b.convert(F, vt.dtype());
  if (call.mode != 'V') return {nullptr, dw, nullptr};
  Value* dV = matmul(b, V, b.binary(O::Multiply, F, M));
  return {dV, dw, nullptr};
}

// The row permutation LAPACK's 1-based `pivots` ([batch..., k]) make of m rows: from the
// identity, row i swapped with row pivots[i] - 1 for i = 0, 1, ..., k - 1 (JAX's
// lu_pivots_to_permutation), as a loop whose every step is elementwise over the batch.
Value* permutationOf(Builder& b, Value* pivots, int64_t m) {
  const Type& pt = pivots->type();
  const int64_t rank = pt.rank(), k = pt.dim(rank - 1);
  Shape batch(pt.shape().begin(), pt.shape().end() - 1), rows = batch;
  rows.push_back(m);
  const Type index = Type::scalar(DType::I32), perRow = Type::tensor(DType::I32, rows);
  Dims batchDims = leadingDims(rank - 1);
  std::vector<Value*> out = b.while_(
      {b.splat(index, 0), b.iota(perRow, rank - 1)},
      [&](Builder& c, const std::vector<Value*>& v) {
        return std::vector<Value*>{c.compare(v[0], c.splat(index, static_cast<double>(k)), ComparisonDirection::LT)};
      },
      [&](Builder& c, const std::vector<Value*>& v) {
        Value* i = v[0];
        Value* perm = v[1];
        auto spread = [&](Value* perMatrix) { return c.broadcastInDim(perMatrix, rows, batchDims); };
        std::vector<Value*> starts(static_cast<size_t>(rank), c.splat(index, 0));
        starts.back() = i;
        Dims one = batch;
        one.push_back(1);
        Value* j = c.binary(O::Subtract, c.reshape(c.dynamicSlice(pivots, starts, one), batch),
                            c.splat(Type::tensor(DType::I32, batch), 1));
        Value* column = c.iota(perRow, rank - 1);
        Value* atI = c.compare(column, c.broadcastInDim(i, rows, {}), ComparisonDirection::EQ);
        Value* atJ = c.compare(column, spread(j), ComparisonDirection::EQ);
        auto pick = [&](Value* where) {  // perm at the one column `where` marks, per matrix
          return c.reduce({c.select(where, perm, zeros(c, perRow))}, {zeros(c, index)}, {rank - 1},
                          [](Builder& d, const std::vector<Value*>& w) {
                            return std::vector<Value*>{d.binary(O::Add, w[0], w[1])};
                          })[0];
        };
        Value* swapped = c.select(atI, spread(pick(atJ)), c.select(atJ, spread(pick(atI)), perm));
        return std::vector<Value*>{c.binary(O::Add, i, c.splat(index, 1)), swapped};
      });
  return out[1];
}

// getrf: P·A = L·U packed in one m×n matrix (L unit lower, U upper) with P from the
// pivots. JAX's rule: with L and U padded to m×m and n×n by the identity, and
// X = L⁻¹·P·dA·U⁻¹, dL = L·strict_lower(X) and dU = upper(X)·U, packed the same way; the
// pivots and info have no tangents.
std::vector<Value*> getrfTangents(JvpArgs& a, const kernels::LapackCall& call) {
  Builder& b = a.b;
  const Type& at = a.x[0]->type();
  const int64_t rank = at.rank(), m = at.dim(rank - 2), n = at.dim(rank - 1), k = std::min(m, n);
  Value* perm = permutationOf(b, a.y[1], m);
  GatherDims rowsOf;  // dA's rows in the order perm gives, per matrix
  rowsOf.operandBatchingDims = rowsOf.startIndicesBatchingDims = leadingDims(rank - 2);
  rowsOf.startIndexMap = rowsOf.collapsedSliceDims = {rank - 2};
  rowsOf.offsetDims = {rank - 1};
  rowsOf.indexVectorDim = rank - 1;
  Dims sizes(static_cast<size_t>(rank), 1);
  sizes.back() = n;
  Value* permuted = b.gather(a.t[0], perm, rowsOf, sizes);
  Value* lu = a.y[0];
  // The square matrix of `side` whose leading block is `block` (zeros elsewhere), plus
  // ones on the diagonal from `onesFrom` on.
  auto padded = [&](Value* block, int64_t side, int64_t onesFrom) {
    const Shape& bs = block->type().shape();
    Dims low(static_cast<size_t>(rank), 0), high(static_cast<size_t>(rank), 0), interior(static_cast<size_t>(rank), 0);
    high[static_cast<size_t>(rank - 2)] = side - bs[static_cast<size_t>(rank - 2)];
    high[static_cast<size_t>(rank - 1)] = side - bs[static_cast<size_t>(rank - 1)];
    Value* square = b.pad(block, zeros(b, Type::scalar(at.dtype())), low, high, interior);
    const Type& st = square->type();
    const Type ids = Type::tensor(DType::I64, st.shape());
    Value* row = b.iota(ids, rank - 2);
    Value* ones = b.binary(O::And, b.compare(row, b.iota(ids, rank - 1), ComparisonDirection::EQ),
                           b.compare(row, b.splat(ids, static_cast<double>(onesFrom)), ComparisonDirection::GE));
    return b.binary(O::Add, square, b.select(ones, b.splat(st, 1), zeros(b, st)));
  };
  Dims origin(static_cast<size_t>(rank), 0), ones(static_cast<size_t>(rank), 1);
  Dims leftLimit = at.shape(), topLimit = at.shape();
  leftLimit.back() = k;
  topLimit[static_cast<size_t>(rank - 2)] = k;
  Value* L = padded(triangle(b, b.slice(lu, origin, leftLimit, ones), true, -1), m, 0);
  Value* U = padded(triangle(b, b.slice(lu, origin, topLimit, ones), false, 0), n, k);
  Solve unitLower{true, true, true, TransposeKind::NoTranspose};
  Solve upperRight{false, false, false, TransposeKind::NoTranspose};
  Value* X = upperRight.apply(b, U, unitLower.apply(b, L, permuted));
  Value* dL = matmul(b, L, triangle(b, X, true, -1));
  Value* dU = matmul(b, triangle(b, X, false, 0), U);
  return {b.binary(O::Add, dL, dU), nullptr, nullptr};
}

// gesdd with reduced vectors (or full ones of a square matrix): A = U·diag(s)·Vᴴ. JAX's
// svd rule: with dS = Uᴴ·dA·V, ds = Re(diag dS); dU = U·(F ∘ (dS·S + S·dSᴴ) + ½(dS - dSᴴ)·S⁻¹)
// and dV = V·(F ∘ (S·dS + dSᴴ·S)), F_ij = 1/(s_j² - s_i²) off the diagonal; a tall or
// wide matrix adds the part of dA outside U's (V's) columns. Repeated singular values
// give non-finite tangents, as in JAX. LAPACK also returns its workspace in place of a:
// a program that reads it is refused. Without vectors (mode 'N': jax.numpy.linalg.svd
// with compute_uv=False) the rule computes reduced ones with a second call in mode 'S',
// as JAX's svd rule does, and differentiates the singular values only.
std::vector<Value*> gesddTangents(JvpArgs& a, const kernels::LapackCall& call) {
  Builder& b = a.b;
  const Type& at = a.x[0]->type();
  const int64_t rank = at.rank(), m = at.dim(rank - 2), n = at.dim(rank - 1), k = std::min(m, n);
  if (call.mode == 'A' && m != n)
    unsupportedRule(a.op, "jvp", "an SVD with full vectors of a matrix that is not square");
  if (a.op.result(0)->hasUses()) unsupportedRule(a.op, "jvp", "a use of the workspace gesdd returns");
  Value* sv = a.y[1];
  Value* U = a.y[2];
  Value* Vh = a.y[3];
  const bool valuesOnly = call.mode == 'N';
  if (valuesOnly) {
    TypeList reduced = a.op.resultTypes();
    Shape u = at.shape(), vh = at.shape();
    u.back() = k;
    vh[static_cast<size_t>(rank - 2)] = k;
    reduced[2] = Type::tensor(at.dtype(), u);
    reduced[3] = Type::tensor(at.dtype(), vh);
    std::vector<Value*> withVectors = callWithMode(a, 'S', reduced);
    U = withVectors[2];
    Vh = withVectors[3];
  }
  Value* V = adjoint(b, Vh);
  Value* dA = a.t[0];
  const DType dtype = at.dtype();
  const bool complex = isComplex(dtype);
  Value* dS = matmul(b, matmul(b, adjoint(b, U), dA), V);
  const Type& st = dS->type();  // k×k
  const Shape& square = st.shape();
  Value* diagonal = onDiagonal(b, square);
  Value* ds = diagonalOf(b, dS);
  if (complex) ds = b.unary(O::Real, ds);
  if (valuesOnly) return {nullptr, ds, nullptr, nullptr, nullptr};
  const DType real = sv->type().dtype();
  Dims batch = leadingDims(rank - 2), asColumns = batch, asRows = batch;  // s_j along the columns, s_i along the rows
  asColumns.push_back(rank - 1);
  asRows.push_back(rank - 2);
  auto spread = [&](Value* perValue, const Shape& shape, const Dims& dims) {
    Value* full = b.broadcastInDim(perValue, shape, dims);
    return complex ? b.convert(full, dtype) : full;
  };
  const Type realSquare = Type::tensor(real, square);
  Value* sj = b.broadcastInDim(sv, square, asColumns);
  Value* si = b.broadcastInDim(sv, square, asRows);
  Value* gaps = b.binary(O::Multiply, b.binary(O::Add, sj, si), b.binary(O::Subtract, sj, si));
  Value* F = b.select(diagonal, zeros(b, realSquare), b.binary(O::Divide, b.splat(realSquare, 1), gaps));
  if (complex) F = b.convert(F, dtype);
  Value* dSS = b.binary(O::Multiply, spread(sv, square, asColumns), dS);
  Value* SdS = b.binary(O::Multiply, spread(sv, square, asRows), dS);
  const Type realVector = sv->type();
  Value* isZero = b.compare(sv, zeros(b, realVector), ComparisonDirection::EQ);
  Value* inverse = b.select(isZero, zeros(b, realVector), b.binary(O::Divide, b.splat(realVector, 1), sv));
  Value* inverseDiagonal = b.select(diagonal, spread(inverse, square, asRows), zeros(b, st));
  Value* skew = b.binary(O::Multiply, b.binary(O::Multiply, b.splat(st, 0.5), b.binary(O::Subtract, dS, adjoint(b, dS))),
                         inverseDiagonal);
  Value* dU = matmul(b, U, b.binary(O::Add, b.binary(O::Multiply, F, b.binary(O::Add, dSS, adjoint(b, dSS))), skew));
  Value* dV = matmul(b, V, b.binary(O::Multiply, F, b.binary(O::Add, SdS, adjoint(b, SdS))));
  // The part of dA that U's (V's) columns do not span, for a tall (wide) matrix.
  auto outside = [&](Value* Q, Value* dAQ) {
    Value* rest = b.binary(O::Subtract, dAQ, matmul(b, Q, matmul(b, adjoint(b, Q), dAQ)));
    return b.binary(O::Divide, rest, spread(sv, rest->type().shape(), asColumns));
  };
  if (m > n) dU = b.binary(O::Add, dU, outside(U, matmul(b, dA, V)));
  if (n > m) dV = b.binary(O::Add, dV, outside(V, matmul(b, adjoint(b, dA), U)));
  return {nullptr, ds, dU, adjoint(b, dV), nullptr};
}

// geev: the eigenvalues of a general matrix, as JAX differentiates eig: the eigenvalues
// only (JAX raises for eigenvectors: a program that reads them is refused). With right
// and left eigenvectors v_i and u_i (uᵢᴴ·A = λ_i·uᵢᴴ), dλ_i = uᵢᴴ·dA·v_i / (uᵢᴴ·v_i), so
// no solve is needed; the rule computes both with a second call when the program's
// lacks them. A real matrix's eigenvalues come as real and imaginary parts.
std::vector<Value*> geevTangents(JvpArgs& a, const kernels::LapackCall& call) {
  Builder& b = a.b;
  const bool real = !isComplex(a.x[0]->type().dtype());
  const size_t left = real ? 2 : 1, right = left + 1;
  if (a.op.result(left)->hasUses() || a.op.result(right)->hasUses())
    unsupportedRule(a.op, "jvp", "derivatives of eigenvectors, which JAX does not define either; eigenvalues only");
  Value* U = a.y[left];
  Value* V = a.y[right];
  if (call.computeLeft != 'V' || call.computeRight != 'V') {
    std::vector<Value*> both = callWith(a, {{"compute_left", 'V'}, {"compute_right", 'V'}}, a.op.resultTypes());
    U = both[left];
    V = both[right];
  }
  const DType complex = V->type().dtype();
  Value* dA = real ? b.convert(a.t[0], complex) : a.t[0];
  Value* Uh = adjoint(b, U);
  Value* dw = b.binary(O::Divide, diagonalOf(b, matmul(b, matmul(b, Uh, dA), V)), diagonalOf(b, matmul(b, Uh, V)));
  std::vector<Value*> tangents(a.op.numResults(), nullptr);
  if (real) {
    tangents[0] = b.unary(O::Real, dw);
    tangents[1] = b.unary(O::Imag, dw);
  } else {
    tangents[0] = dw;
  }
  return tangents;
}

// ---- QR: geqrf (A = Q·R, Q as k Householder reflectors) and orgqr (Q from them) ----
//
// LAPACK packs the reflectors below R: column i of the unit lower trapezoidal V (m×k)
// is v_i (1 on the diagonal, implicit), and Q = H_1···H_k with H_i = I - τ_i·v_i·v_iᴴ.
// Their product is I - V·T·Vᴴ with T upper triangular, T_ii = τ_i (LAPACK's larft):
// T = (I + D·S)⁻¹·D with D = diag(τ) and S = strict_upper(Vᴴ·V), which divides by no τ
// (τ_i = 0, H_i = I, is common: the last reflector of a real square matrix). So orgqr
// differentiates exactly, for any reflectors; and geqrf's reflectors are a smooth
// function of (Q, R): with U = T·V₁ᴴ (upper, diagonal τ) and V₁ the top k×k block of V,
// I - Q₁ = V₁·U is an LU factorization of the top of the reduced Q, and V₂ = -Q₂·U⁻¹
// below it. geqrf's rule takes dQ and dR from JAX's qr rule, then the reflectors' and
// the τs' tangents from that LU's.

// Rows [r0, r1) and columns [c0, c1) of each matrix of x.
Value* block(Builder& b, Value* x, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  const Type& t = x->type();
  const size_t rank = static_cast<size_t>(t.rank());
  Dims start(rank, 0), limit = t.shape(), strides(rank, 1);
  start[rank - 2] = r0, limit[rank - 2] = r1, start[rank - 1] = c0, limit[rank - 1] = c1;
  return b.slice(x, start, limit, strides);
}

// Ones on the diagonal of a tensor of type `t`, zeros elsewhere.
Value* identity(Builder& b, const Type& t) {
  return b.select(onDiagonal(b, t.shape()), b.splat(t, 1), zeros(b, t));
}

// The k×k matrices with `d` ([batch..., k]) on their diagonal.
Value* diagonalMatrix(Builder& b, Value* d) {
  const Type& t = d->type();
  Shape square = t.shape();
  square.push_back(square.back());
  const Type st = Type::tensor(t.dtype(), square);
  Dims along = leadingDims(t.rank() - 1);
  along.push_back(t.rank());
  return b.select(onDiagonal(b, square), b.broadcastInDim(d, square, along), zeros(b, st));
}

// V (m×k) from the first k columns of the packed matrix, or its tangent (no diagonal).
Value* reflectorsOf(Builder& b, Value* packed, int64_t k, bool withDiagonal) {
  const Type& t = packed->type();
  Value* strict = triangle(b, block(b, packed, 0, t.dim(t.rank() - 2), 0, k), true, -1);
  return withDiagonal ? b.binary(O::Add, strict, identity(b, strict->type())) : strict;
}

// What Q's compact form needs, and the tangent of T from those of V and τ.
struct CompactQ {
  Value *V, *tau, *D, *N, *T;
  static Solve unitUpper() { return {true, false, true, TransposeKind::NoTranspose}; }
  CompactQ(Builder& b, Value* packed, Value* taus) : tau(taus) {
    const int64_t k = taus->type().dim(taus->type().rank() - 1);
    V = reflectorsOf(b, packed, k, true);
    D = diagonalMatrix(b, tau);
    N = b.binary(O::Add, identity(b, D->type()), matmul(b, D, triangle(b, matmul(b, adjoint(b, V), V), false, 1)));
    T = unitUpper().apply(b, N, D);
  }
  // The first n columns of H_1···H_k: E - V·T·V[:n]ᴴ.
  Value* q(Builder& b, int64_t n) const {
    const Type& vt = V->type();
    Shape shape = vt.shape();
    shape.back() = n;
    Value* top = block(b, V, 0, n, 0, vt.dim(vt.rank() - 1));
    return b.binary(O::Subtract, identity(b, Type::tensor(vt.dtype(), shape)), matmul(b, matmul(b, V, T), adjoint(b, top)));
  }
  // dT = N⁻¹·(dD - dN·T), dN = dD·S + D·dS, dS = strict_upper(dVᴴ·V + Vᴴ·dV).
  Value* dT(Builder& b, Value* dV, Value* dTau) const {
    Value* dD = dTau ? diagonalMatrix(b, dTau) : nullptr;
    Value* dN = nullptr;
    if (dD) dN = matmul(b, dD, triangle(b, matmul(b, adjoint(b, V), V), false, 1));
    if (dV) {
      Value* VhdV = matmul(b, adjoint(b, V), dV);
      Value* dS = triangle(b, b.binary(O::Add, adjoint(b, VhdV), VhdV), false, 1);
      dN = addTangents(b, dN, matmul(b, D, dS));
    }
    Value* rhs = dD;
    if (dN) rhs = addTangents(b, rhs, b.unary(O::Negate, matmul(b, dN, T)));
    return rhs ? unitUpper().apply(b, N, rhs) : nullptr;
  }
};

// orgqr: Q = (H_1···H_k)[:, :n] = E - V·T·Vₙᴴ, differentiated in V (the packed matrix's
// strict lower part of its first k columns: the only part LAPACK reads) and τ.
std::vector<Value*> orgqrTangents(JvpArgs& a, const kernels::LapackCall&) {
  Builder& b = a.b;
  const Type& pt = a.x[0]->type();
  const int64_t rank = pt.rank(), n = pt.dim(rank - 1), k = a.x[1]->type().dim(a.x[1]->type().rank() - 1);
  const CompactQ c(b, a.x[0], a.x[1]);
  Value* Vn = block(b, c.V, 0, n, 0, k);
  Value* dV = a.t[0] ? reflectorsOf(b, a.t[0], k, false) : nullptr;
  Value* dQ = nullptr;
  if (dV) {
    Value* dVn = block(b, dV, 0, n, 0, k);
    dQ = b.binary(O::Add, matmul(b, matmul(b, dV, c.T), adjoint(b, Vn)), matmul(b, matmul(b, c.V, c.T), adjoint(b, dVn)));
  }
  if (Value* dT = c.dT(b, dV, a.t[1])) dQ = addTangents(b, dQ, matmul(b, matmul(b, c.V, dT), adjoint(b, Vn)));
  return {b.unary(O::Negate, dQ)};
}

// geqrf of an m×n matrix, m >= n (k = n; JAX's qr rule has the same limit). JAX's rule:
// with X = dA·R⁻¹ and M = Qᴴ·X, Ω = tril(M, -1) - tril(M, -1)ᴴ (plus M's imaginary
// diagonal for complex matrices), dQ = Q·(Ω - M) + X and dR = (M - Ω)·R. Then, from
// I - Q₁ = V₁·U: with Y = -V₁⁻¹·dQ₁ and Λ = strict_lower(Y·U'⁻¹), dV₁ = V₁·Λ and
// dU = upper(Y - Λ·U) (U' is U with 1 where τ_i = 0, on which no strict lower entry of
// Y·U'⁻¹ depends); dτ = diag(dU); dV₂ = -(dQ₂ + V₂·dU)·U'⁻¹.
std::vector<Value*> geqrfTangents(JvpArgs& a, const kernels::LapackCall&) {
  Builder& b = a.b;
  const Type& at = a.x[0]->type();
  const int64_t rank = at.rank(), m = at.dim(rank - 2), n = at.dim(rank - 1);
  if (m < n) unsupportedRule(a.op, "jvp", "QR of a wide matrix (fewer rows than columns), as in JAX");
  const DType dtype = at.dtype();
  Value* packed = a.y[0];
  const CompactQ c(b, packed, a.y[1]);
  Value* Q = c.q(b, n);
  Value* R = triangle(b, block(b, packed, 0, n, 0, n), false, 0);
  Value* X = Solve{false, false, false, TransposeKind::NoTranspose}.apply(b, R, a.t[0]);
  Value* M = matmul(b, adjoint(b, Q), X);
  Value* lower = triangle(b, M, true, -1);
  Value* omega = b.binary(O::Subtract, lower, adjoint(b, lower));
  if (isComplex(dtype)) {
    Value* imaginary = b.binary(O::Subtract, M, b.convert(b.unary(O::Real, M), dtype));
    omega = b.binary(O::Add, omega, b.select(onDiagonal(b, M->type().shape()), imaginary, zeros(b, M->type())));
  }
  Value* dQ = b.binary(O::Add, matmul(b, Q, b.binary(O::Subtract, omega, M)), X);
  Value* dR = triangle(b, matmul(b, b.binary(O::Subtract, M, omega), R), false, 0);
  // The reflectors' tangents.
  Value* V1 = block(b, c.V, 0, n, 0, n);
  Value* U = matmul(b, c.T, adjoint(b, V1));
  const Type& ut = U->type();
  Value* tauIsZero = b.compare(c.D, zeros(b, ut), ComparisonDirection::EQ);
  Value* Uprime = b.select(b.binary(O::And, onDiagonal(b, ut.shape()), tauIsZero), b.splat(ut, 1), U);
  const Solve unitLower{true, true, true, TransposeKind::NoTranspose};
  const Solve byUpper{false, false, false, TransposeKind::NoTranspose};  // x·U' = rhs
  Value* Y = b.unary(O::Negate, unitLower.apply(b, V1, block(b, dQ, 0, n, 0, n)));
  Value* lambda = triangle(b, byUpper.apply(b, Uprime, Y), true, -1);
  Value* dU = triangle(b, b.binary(O::Subtract, Y, matmul(b, lambda, U)), false, 0);
  Value* dPacked = b.binary(O::Add, triangle(b, matmul(b, V1, lambda), true, -1), dR);
  if (m > n) {
    Value* V2 = block(b, c.V, n, m, 0, n);
    Value* dV2 = byUpper.apply(b, Uprime, b.unary(O::Negate, b.binary(O::Add, block(b, dQ, n, m, 0, n), matmul(b, V2, dU))));
    dPacked = b.concatenate({dPacked, dV2}, rank - 2);
  }
  return {dPacked, diagonalOf(b, dU)};
}

// `x` moved `by` places along `dim` (+1: element i holds x[i - 1]), zeros moved in.
Value* shifted(Builder& b, Value* x, int64_t dim, int64_t by) {
  const Type& t = x->type();
  const size_t d = static_cast<size_t>(dim);
  const int64_t n = t.dim(dim), rank = t.rank();
  Dims start(static_cast<size_t>(rank), 0), limit = t.shape(), strides(static_cast<size_t>(rank), 1);
  Dims low(static_cast<size_t>(rank), 0), high(static_cast<size_t>(rank), 0), interior(static_cast<size_t>(rank), 0);
  const int64_t moved = std::min(std::abs(by), n);
  if (by > 0) limit[d] = n - moved, low[d] = moved;
  else start[d] = moved, high[d] = moved;
  return b.pad(b.slice(x, start, limit, strides), zeros(b, Type::scalar(t.dtype())), low, high, interior);
}

// gtsv (JAX's tridiagonal_solve): A·x = b for A tridiagonal with dl below the diagonal
// (dl[i] at row i, column i - 1; dl[0] unused), d on it and du above it (du[i] at column
// i + 1; the last unused). dx = A⁻¹·(db - dA·x), the solve another gtsv call on the
// same diagonals (linear in its right-hand side: gtsvTranspose). LAPACK also returns its
// factorization in place of dl, d and du, whose tangents are not written: a program that
// reads them is refused.
std::vector<Value*> gtsvTangents(JvpArgs& a, const kernels::LapackCall&) {
  for (size_t r = 0; r < 3; ++r)
    if (a.op.result(r)->hasUses()) unsupportedRule(a.op, "jvp", "a use of the factorization gtsv returns");
  Builder& b = a.b;
  Value* x = a.y[3];
  const Type& xt = x->type();
  const int64_t rank = xt.rank();
  const Dims alongRows = leadingDims(rank - 1);
  auto times = [&](Value* diagonal, Value* v) {
    return b.binary(O::Multiply, b.broadcastInDim(diagonal, xt.shape(), alongRows), v);
  };
  Value* dAx = nullptr;
  if (a.t[0]) dAx = times(a.t[0], shifted(b, x, rank - 2, 1));
  if (a.t[1]) dAx = addTangents(b, dAx, times(a.t[1], x));
  if (a.t[2]) dAx = addTangents(b, dAx, times(a.t[2], shifted(b, x, rank - 2, -1)));
  Value* rhs = a.t[3];
  if (dAx) rhs = addTangents(b, rhs, b.unary(O::Negate, dAx));
  if (!rhs) return std::vector<Value*>(5, nullptr);
  Value* dx = rebuilt(b, a.op, {a.x[0], a.x[1], a.x[2], rhs}, a.op.attrs(), a.op.resultTypes())[3];
  return {nullptr, nullptr, nullptr, dx, nullptr};
}

// A gtsv call whose right-hand side is linear: x = A⁻¹·r transposes to r̄ = A⁻ᵀ·x̄, a gtsv
// call on Aᵀ's diagonals (below it, du moved down one; above it, dl moved up one).
std::vector<Value*> customCallTranspose(TransposeArgs& a) {
  std::optional<kernels::LapackCall> call = kernels::lapackCallOf(a.op);
  if (!call || call->routine != kernels::LapackRoutine::Gtsv || a.linear[0] || a.linear[1] || a.linear[2] ||
      !a.linear[3])
    unsupportedRule(a.op, "transpose");
  if (!a.ct[3]) return {nullptr, nullptr, nullptr, nullptr};
  const int64_t last = a.x[0]->type().rank() - 1;
  Value* below = shifted(a.b, a.x[2], last, 1);
  Value* above = shifted(a.b, a.x[0], last, -1);
  return {nullptr, nullptr, nullptr,
          rebuilt(a.b, a.op, {below, a.x[1], above, a.ct[3]}, a.op.attrs(), a.op.resultTypes())[3]};
}

// The LAPACK routines with rules, and where their matrices are (the rules are for the
// matrices LAPACK sees: jaxlib lays them out column-major; a row-major one would be its
// transpose to LAPACK, which they do not handle).
struct LapackRule {
  kernels::LapackRoutine routine;
  std::vector<Value*> (*tangents)(JvpArgs&, const kernels::LapackCall&);
  std::vector<size_t> matrixOperands;
  size_t matrixResult;
};
const LapackRule kLapackRules[] = {
    {kernels::LapackRoutine::Potrf, &potrfTangents, {0}, 0},
    {kernels::LapackRoutine::Trsm, &trsmTangents, {0, 1}, 0},
    {kernels::LapackRoutine::Syevd, &syevdTangents, {0}, 0},
    {kernels::LapackRoutine::Getrf, &getrfTangents, {0}, 0},
    {kernels::LapackRoutine::Gtsv, &gtsvTangents, {3}, 3},
    {kernels::LapackRoutine::Gesdd, &gesddTangents, {0}, 2},
    {kernels::LapackRoutine::Geqrf, &geqrfTangents, {0}, 0},
    {kernels::LapackRoutine::Orgqr, &orgqrTangents, {0}, 0},
    {kernels::LapackRoutine::Geev, &geevTangents, {0}, 2},  // an eigenvector matrix (real or complex calls)
};

bool columnMajor(const kernels::LapackCall& call, const LapackRule& rule) {
  auto ok = [](const Type& t, const std::vector<int64_t>& layout) {
    const int64_t rank = t.rank();
    return layout.size() >= 2 && layout[0] == rank - 2 && layout[1] == rank - 1;
  };
  for (size_t i : rule.matrixOperands)
    if (!ok(call.operands[i], call.operandLayouts[i])) return false;
  return ok(call.results[rule.matrixResult], call.resultLayouts[rule.matrixResult]);
}

// A custom call kiln knows the derivative of: the LAPACK calls above. Others (and the
// other LAPACK routines) are refused by their target.
std::vector<Value*> customCallJvp(JvpArgs& a) {
  std::optional<kernels::LapackCall> call = kernels::lapackCallOf(a.op);
  const LapackRule* rule = nullptr;
  for (const LapackRule& r : kLapackRules)
    if (call && call->routine == r.routine) rule = &r;
  if (call && !rule) {
    // As in JAX, whose schur, hessenberg and tridiagonal have no derivatives.
    const char* what = call->routine == kernels::LapackRoutine::Gees    ? "the Schur decomposition"
                       : call->routine == kernels::LapackRoutine::Gehrd ? "the Hessenberg reduction"
                       : call->routine == kernels::LapackRoutine::Sytrd ? "the tridiagonal reduction"
                                                                        : nullptr;
    if (what) unsupportedRule(a.op, "jvp", std::string(what) + " has no derivative (JAX defines none either)");
  }
  if (!rule) unsupportedRule(a.op, "jvp");
  if (!columnMajor(*call, *rule)) unsupportedRule(a.op, "jvp", "matrices not in jaxlib's column-major layout");
  bool any = false;
  for (Value* t : a.t) any |= t != nullptr;
  if (!any) return std::vector<Value*>(a.op.numResults(), nullptr);
  return rule->tangents(a, *call);
}

}  // namespace

void addLapackCallRules(OpTable<OpRules>& t) {
  t[O::CustomCall].jvp = &customCallJvp;
  t[O::CustomCall].transpose = &customCallTranspose;
}

}  // namespace kiln::transforms
