// Kernels: triangular_solve, cholesky and the Householder product (custom_call
// @ProductOfElementaryHouseholderReflectors) over batches of matrices (the leading
// dimensions). All compute in double (complex<double> for complex types) and round
// once to the element type; the unused triangle of a Cholesky factor is zero.
#include <algorithm>
#include <cmath>

#include "interp/ops/custom_calls.h"
#include "interp/ops/linalg.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

template <class T>
T conjugate(T x) {
  if constexpr (kIsComplex<T>) return std::conj(x);
  else return x;
}

// The wide type a real or complex compute type T is solved in.
template <class T>
using Wide = std::conditional_t<kIsComplex<T>, std::complex<double>, double>;

std::vector<int64_t> identity(size_t rank) {
  std::vector<int64_t> p;
  for (size_t d = 0; d < rank; ++d) p.push_back(static_cast<int64_t>(d));
  return p;
}

template <class W>
void writeOut(Literal& out, const std::vector<W>& values) {
  visitDType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || kIsComplex<T>) {
      Writer<T> w(out);
      for (size_t i = 0; i < values.size(); ++i) w.set(static_cast<int64_t>(i), convertElement<T>(values[i]));
    }
  });
}

// Solves op(a) x = b (left_side) or x op(a) = b for each batch. Only the `lower` (or
// upper) triangle of a is read; unit_diagonal takes its diagonal as ones.
template <class W>
std::vector<W> triangularSolve(const Literal& aLit, const Literal& bLit, bool leftSide, bool lower,
                               bool unitDiagonal, TransposeKind transpose, EvalContext& ctx) {
  const Shape& bs = bLit.shape();
  const size_t rank = bs.size();
  const int64_t rows = bs[rank - 2], cols = bs[rank - 1];
  const int64_t m = aLit.shape()[rank - 1];
  const int64_t batches = rows * cols == 0 ? 0 : bLit.numElements() / (rows * cols);
  std::vector<W> a = packAs<W>(aLit, identity(rank));
  std::vector<W> x = packAs<W>(bLit, identity(rank));
  const bool transposed = transpose != TransposeKind::NoTranspose;
  const bool adjoint = transpose == TransposeKind::Adjoint;
  // op(a) is lower triangular when a's lower triangle is used untransposed, or its
  // upper triangle transposed.
  const bool opLower = lower != transposed;
  for (int64_t batch = 0; batch < batches; ++batch) {
    ctx.checkTime();
    const W* A = a.data() + batch * m * m;
    W* X = x.data() + batch * rows * cols;
    auto opA = [&](int64_t i, int64_t j) {
      W v = transposed ? A[j * m + i] : A[i * m + j];
      return adjoint ? conjugate(v) : v;
    };
    auto diag = [&](int64_t i) { return unitDiagonal ? W(1) : opA(i, i); };
    if (leftSide) {
      // Row i of x: (b[i] - sum over the solved rows k of op(a)[i][k] x[k]) / op(a)[i][i].
      for (int64_t step = 0; step < m; ++step) {
        int64_t i = opLower ? step : m - 1 - step;
        for (int64_t c = 0; c < cols; ++c) {
          W acc = X[i * cols + c];
          for (int64_t s = 0; s < step; ++s) {
            int64_t k = opLower ? s : m - 1 - s;
            acc -= opA(i, k) * X[k * cols + c];
          }
          X[i * cols + c] = acc / diag(i);
        }
      }
    } else {
      // Column j of x: (b[:, j] - sum over the solved columns k of x[:, k] op(a)[k][j]) / op(a)[j][j].
      for (int64_t step = 0; step < m; ++step) {
        int64_t j = opLower ? m - 1 - step : step;
        for (int64_t r = 0; r < rows; ++r) {
          W acc = X[r * cols + j];
          for (int64_t s = 0; s < step; ++s) {
            int64_t k = opLower ? m - 1 - s : s;
            acc -= X[r * cols + k] * opA(k, j);
          }
          X[r * cols + j] = acc / diag(j);
        }
      }
    }
  }
  return x;
}

HostValues triangularSolveKernel(const Op& op, const HostValues& v, EvalContext& ctx) {
  Literal out(op.result(0)->type());
  visitDType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || kIsComplex<T>) {
      writeOut(out, triangularSolve<Wide<T>>(v[0].tensor(), v[1].tensor(), op.attr("left_side").asBool(),
                                             op.attr("lower").asBool(), op.attr("unit_diagonal").asBool(),
                                             transposeKindOf(op.attr("transpose_a")), ctx));
    } else {
      unsupportedOp(op, "integer operands");
    }
  });
  return {out};
}

// Cholesky–Banachiewicz: L L^H = A from A's lower triangle (lower), or U^H U = A from its
// upper triangle, computed as the conjugate transpose of the lower factor.
template <class W>
std::vector<W> cholesky(const Literal& aLit, bool lower, EvalContext& ctx) {
  const size_t rank = aLit.shape().size();
  const int64_t n = aLit.shape()[rank - 1];
  const int64_t batches = n == 0 ? 0 : aLit.numElements() / (n * n);
  std::vector<W> a = packAs<W>(aLit, identity(rank));
  std::vector<W> out(a.size(), W(0));
  for (int64_t batch = 0; batch < batches; ++batch) {
    ctx.checkTime();
    const W* A = a.data() + batch * n * n;
    W* R = out.data() + batch * n * n;
    // The lower triangle of A as Hermitian: from the upper triangle when !lower.
    auto lowerA = [&](int64_t i, int64_t j) { return lower ? A[i * n + j] : conjugate(A[j * n + i]); };
    std::vector<W> L(static_cast<size_t>(n * n), W(0));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        W acc = lowerA(i, j);
        for (int64_t k = 0; k < j; ++k) acc -= L[i * n + k] * conjugate(L[j * n + k]);
        if (i == j) {
          double d = std::real(acc);
          L[i * n + i] = W(std::sqrt(d));
        } else {
          L[i * n + j] = acc / L[j * n + j];
        }
      }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        if (lower) R[i * n + j] = L[i * n + j];
        else R[j * n + i] = conjugate(L[i * n + j]);
      }
  }
  return out;
}

HostValues choleskyKernel(const Op& op, const HostValues& v, EvalContext& ctx) {
  Literal out(op.result(0)->type());
  Attribute lowerAttr = op.attr("lower");
  const bool lower = lowerAttr && lowerAttr.asBool();
  visitDType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || kIsComplex<T>) {
      writeOut(out, cholesky<Wide<T>>(v[0].tensor(), lower, ctx));
    } else {
      unsupportedOp(op, "integer operands");
    }
  });
  return {out};
}

// Q = H_0 ... H_{k-1} with H_i = I - tau_i v_i v_i^H, where v_i is column i of a below
// the diagonal with a 1 on it (LAPACK's orgqr): returns the first n columns of Q.
template <class W>
std::vector<W> householderProduct(const Literal& aLit, const Literal& tauLit, EvalContext& ctx) {
  const size_t rank = aLit.shape().size();
  const int64_t m = aLit.shape()[rank - 2], n = aLit.shape()[rank - 1];
  const int64_t k = tauLit.shape().back();
  const int64_t batches = m * n == 0 ? 0 : aLit.numElements() / (m * n);
  std::vector<W> a = packAs<W>(aLit, identity(rank));
  std::vector<W> tau = packAs<W>(tauLit, identity(tauLit.shape().size()));
  std::vector<W> out(a.size(), W(0));
  std::vector<W> v(static_cast<size_t>(m));
  for (int64_t batch = 0; batch < batches; ++batch) {
    ctx.checkTime();
    const W* A = a.data() + batch * m * n;
    W* X = out.data() + batch * m * n;
    for (int64_t i = 0; i < std::min(m, n); ++i) X[i * n + i] = W(1);
    for (int64_t i = k; i-- > 0;) {
      for (int64_t r = 0; r < m; ++r) v[static_cast<size_t>(r)] = r < i ? W(0) : r == i ? W(1) : A[r * n + i];
      const W t = tau[static_cast<size_t>(batch * k + i)];
      for (int64_t c = 0; c < n; ++c) {
        W dot(0);  // v^H X[:, c]
        for (int64_t r = i; r < m; ++r) dot += conjugate(v[static_cast<size_t>(r)]) * X[r * n + c];
        for (int64_t r = i; r < m; ++r) X[r * n + c] -= t * v[static_cast<size_t>(r)] * dot;
      }
    }
  }
  return out;
}

}  // namespace

HostValues householderProductKernel(const Op& op, const HostValues& v, EvalContext& ctx) {
  Literal out(op.result(0)->type());
  visitDType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || kIsComplex<T>) {
      writeOut(out, householderProduct<Wide<T>>(v[0].tensor(), v[1].tensor(), ctx));
    } else {
      unsupportedOp(op, "integer operands");
    }
  });
  return {out};
}

void addSolveKernels(KernelTable& t) {
  t.set(ops::TriangularSolve, &triangularSolveKernel);
  t.set(ops::Cholesky, &choleskyKernel);
}

}  // namespace kiln::interp
