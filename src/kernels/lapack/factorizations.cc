// LU (getrf), QR (geqrf, orgqr/ungqr), Cholesky (potrf) and the two solves (trsm,
// gtsv) as jaxlib's CPU kernels run them (lapack_routines.h).
#include "kernels/lapack/lapack_routines.h"

namespace kiln::kernels {

using namespace lapack;  // NOLINT: the routines' own namespace

// getrf(a) -> (lu, pivots, info): pivots 1-based as LAPACK gives them; info > 0 names the
// first zero pivot of a singular matrix (the factorization still completes).
void runGetrf(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    const Batch x = batchOf(call.operands[0]);
    T* a = copyInto<T>(call, b, 0, 0);
    Int* pivots = out<Int>(b, 1);
    Int* info = out<Int>(b, 2);
    const int64_t k = std::min(x.rows, x.cols);
    for (int64_t i = 0; i < x.count; ++i)
      info[i] = getrf(toInt(x.rows), toInt(x.cols), a + i * x.rows * x.cols, leading(x.rows),
                      pivots + i * k);
  });
}

// geqrf(a) -> (reflectors with r above them, taus); no info output.
void runGeqrf(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    const Batch x = batchOf(call.operands[0]);
    const Int m = toInt(x.rows), n = toInt(x.cols);
    T* a = copyInto<T>(call, b, 0, 0);
    T* tau = out<T>(b, 1);
    T query{};
    geqrf(m, n, nullptr, leading(m), nullptr, &query, -1);
    const Int lwork = queriedSize(query);
    std::vector<T> work = scratch<T>(lwork);
    const int64_t k = std::min(x.rows, x.cols);
    for (int64_t i = 0; i < x.count; ++i)
      geqrf(m, n, a + i * x.rows * x.cols, leading(m), tau + i * k, work.data(), lwork);
  });
}

// orgqr / ungqr(reflectors, taus) -> q: the first n columns of the product of the
// reflectors (n <= m, and as many taus as reflectors).
void runOrgqr(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    const Batch x = batchOf(call.operands[0]);
    const Type& tauType = call.operands[1];
    const int64_t reflectors = tauType.dim(tauType.rank() - 1);
    const Int m = toInt(x.rows), n = toInt(x.cols), k = toInt(reflectors);
    T* a = copyInto<T>(call, b, 0, 0);
    const T* tau = in<T>(b, 1);
    T query{};
    orgqr(m, n, k, nullptr, leading(m), nullptr, &query, -1);
    const Int lwork = queriedSize(query);
    std::vector<T> work = scratch<T>(lwork);
    for (int64_t i = 0; i < x.count; ++i)
      orgqr(m, n, k, a + i * x.rows * x.cols, leading(m), tau + i * reflectors, work.data(), lwork);
  });
}

// potrf(a) -> (factor, info): only the `uplo` triangle is written (the other keeps the
// input, as in jaxlib); info > 0 when a leading minor is not positive definite.
void runPotrf(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    const Batch x = batchOf(call.operands[0]);
    T* a = copyInto<T>(call, b, 0, 0);
    Int* info = out<Int>(b, 1);
    for (int64_t i = 0; i < x.count; ++i)
      info[i] = potrf(call.uplo, toInt(x.cols), a + i * x.rows * x.cols, leading(x.rows));
  });
}

// trsm(a, b[, alpha]) -> x with op(a) x = alpha b (side 'L') or x op(a) = alpha b
// (side 'R'); alpha is 1 when the call has no third operand (newer jaxlib).
void runTrsm(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    const Batch y = batchOf(call.operands[1]);
    const T alpha = call.operands.size() > 2 ? *in<T>(b, 2) : T(1);
    const int64_t k = call.side == 'L' ? y.rows : y.cols;
    const T* a = in<T>(b, 0);
    T* x = copyInto<T>(call, b, 1, 0);
    for (int64_t i = 0; i < y.count; ++i)
      trsm(call.side, call.uplo, call.transpose, call.diag, toInt(y.rows), toInt(y.cols), alpha,
           a + i * k * k, leading(k), x + i * y.rows * y.cols, leading(y.rows));
  });
}

// gtsv(dl, d, du, b) -> (dl', d', du', x, info): JAX's sub-diagonal dl starts with an
// unused element (dl[0]) and the super-diagonal du ends with one, so LAPACK gets dl + 1.
void runGtsv(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    const Batch rhs = batchOf(call.operands[3]);
    T* dl = copyInto<T>(call, b, 0, 0);
    T* d = copyInto<T>(call, b, 1, 1);
    T* du = copyInto<T>(call, b, 2, 2);
    T* x = copyInto<T>(call, b, 3, 3);
    Int* info = out<Int>(b, 4);
    const int64_t m = rhs.rows;
    for (int64_t i = 0; i < rhs.count; ++i) {
      if (m == 0) continue;  // (dl + 1 would point past an empty diagonal)
      info[i] = gtsv(toInt(m), toInt(rhs.cols), dl + i * m + 1, d + i * m, du + i * m,
                     x + i * m * rhs.cols, leading(m));
    }
  });
}

}  // namespace kiln::kernels
