// Matrix helpers the linear-algebra rules share (rules/linalg.cc defines them; the LAPACK
// custom calls' rules in rules/lapack_calls.cc use them too). Matrices are the last two
// dimensions of a tensor; the leading ones are batch dimensions.
#pragma once

#include "ir/attr_records.h"
#include "ir/builder.h"
#include "ir/ops/stablehlo.h"

namespace kiln::transforms {

// 0, 1, ..., count - 1.
Dims leadingDims(int64_t count);
Value* matrixTranspose(Builder& b, Value* x);
// The conjugate transpose.
Value* adjoint(Builder& b, Value* x);
// x·y for batches of matrices.
Value* matmul(Builder& b, Value* x, Value* y);
// Whether each element of a tensor of `shape` lies in the lower (upper) triangle from
// diagonal `k` on: column - row <= k (>= k).
Value* inTriangle(Builder& b, const Shape& shape, bool lower, int64_t k);
// Whether each element of a tensor of `shape` lies on the diagonal of its matrix.
Value* onDiagonal(Builder& b, const Shape& shape);
// The diagonal of each (square) matrix of `x`: [batch..., n].
Value* diagonalOf(Builder& b, Value* x);
// x's lower (upper) triangle from diagonal k on, zeros elsewhere.
Value* triangle(Builder& b, Value* x, bool lower, int64_t k);
// Ones in the strict lower (upper) triangle, halves on the diagonal, zeros elsewhere, of
// `like`'s type: x times it is Φ(x) (lower), and S = it·t makes S + Sᴴ the Hermitian
// matrix t's triangle stands for.
Value* halvedTriangle(Builder& b, Value* like, bool lower);

// A triangular solve as stablehlo.triangular_solve states it.
struct Solve {
  bool leftSide, lower, unitDiagonal;
  TransposeKind transpose;
  static Solve of(const Op& op) {
    return {op.attr("left_side").asBool(), op.attr("lower").asBool(), op.attr("unit_diagonal").asBool(),
            transposeKindOf(op.attr("transpose_a"))};
  }
  // op(a)⁻¹·rhs (left side) or rhs·op(a)⁻¹.
  Value* apply(Builder& b, Value* a, Value* rhs) const {
    NamedAttrList attrs = {{"left_side", Attribute::boolean(leftSide)},
                           {"lower", Attribute::boolean(lower)},
                           {"transpose_a", toAttr(transpose)},
                           {"unit_diagonal", Attribute::boolean(unitDiagonal)}};
    return b.create1(ops::TriangularSolve, {a, rhs}, std::move(attrs));
  }
};

// The tangent of x = op(a)⁻¹·b (left side) or b·op(a)⁻¹ from da and db (null: zero).
Value* solveTangent(Builder& b, const Solve& s, Value* a, Value* x, Value* da, Value* db);
// The tangent of the Cholesky factor `factor` of `a` (the `lower` or upper one) from da.
Value* choleskyTangent(Builder& b, Value* a, Value* factor, Value* da, bool lower);

}  // namespace kiln::transforms
