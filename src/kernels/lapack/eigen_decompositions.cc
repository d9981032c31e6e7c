// The eigen and singular value decompositions (syevd/heevd, geev, gees, gesdd) and the
// reductions that lead to them (gehrd, sytrd/hetrd), as jaxlib's CPU kernels run them
// (lapack_routines.h).
#include <cmath>

#include "kernels/lapack/lapack_routines.h"

namespace kiln::kernels {

using namespace lapack;  // NOLINT: the routines' own namespace

// syevd / heevd(a) -> (eigenvectors in columns, or a destroyed when mode 'N'; ascending
// real eigenvalues; info).
void runSyevd(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    using R = Real<T>;
    const Batch x = batchOf(call.operands[0]);
    const Int n = toInt(x.cols);
    T* a = copyInto<T>(call, b, 0, 0);
    R* w = out<R>(b, 1);
    Int* info = out<Int>(b, 2);
    T workQuery{};
    R rworkQuery{};
    Int iworkQuery = 0;
    syevd(call.mode, call.uplo, n, nullptr, leading(n), nullptr, &workQuery, -1, &rworkQuery, -1,
          &iworkQuery, -1);
    const Int lwork = queriedSize(workQuery), liwork = std::max<Int>(1, iworkQuery);
    const Int lrwork = kComplex<T> ? queriedSize(rworkQuery) : 1;
    std::vector<T> work = scratch<T>(lwork);
    std::vector<R> rwork = scratch<R>(lrwork);
    std::vector<Int> iwork = scratch<Int>(liwork);
    for (int64_t i = 0; i < x.count; ++i)
      info[i] = syevd(call.mode, call.uplo, n, a + i * x.rows * x.cols, leading(n), w + i * x.cols,
                      work.data(), lwork, rwork.data(), lrwork, iwork.data(), liwork);
  });
}

// gesdd(a) -> (a destroyed, singular values descending, u, vt, info); mode 'A' (full u
// and vt), 'S' (min(m, n) columns of u, rows of vt) or 'N' (neither: u and vt stay zero).
void runGesdd(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    using R = Real<T>;
    const Batch x = batchOf(call.operands[0]);
    const Batch u = batchOf(call.results[2]), vt = batchOf(call.results[3]);
    const Int m = toInt(x.rows), n = toInt(x.cols);
    const int64_t k = std::min(x.rows, x.cols), big = std::max(x.rows, x.cols);
    T* a = copyInto<T>(call, b, 0, 0);
    R* s = out<R>(b, 1);
    T* uOut = out<T>(b, 2);
    T* vtOut = out<T>(b, 3);
    Int* info = out<Int>(b, 4);
    T query{};
    gesdd(call.mode, m, n, nullptr, leading(m), nullptr, nullptr, leading(m), nullptr,
          leading(vt.rows), &query, -1, nullptr, nullptr);
    const Int lwork = queriedSize(query);
    std::vector<T> work = scratch<T>(lwork);
    std::vector<Int> iwork = scratch<Int>(8 * k);
    // The real workspace of the complex routines, as LAPACK's documentation sizes it.
    const int64_t lrwork = !kComplex<T> ? 1
                           : call.mode == 'N'
                               ? 7 * k
                               : std::max(5 * k * k + 5 * k, 2 * big * k + 2 * k * k + k);
    std::vector<R> rwork = scratch<R>(lrwork);
    for (int64_t i = 0; i < x.count; ++i)
      info[i] = gesdd(call.mode, m, n, a + i * x.rows * x.cols, leading(m), s + i * k,
                      uOut + i * u.rows * u.cols, leading(m), vtOut + i * vt.rows * vt.cols,
                      leading(vt.rows), work.data(), lwork, rwork.data(), iwork.data());
  });
}

namespace {

template <class T>
bool allFinite(const T* a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kComplex<T>) {
      if (!std::isfinite(a[i].real()) || !std::isfinite(a[i].imag())) return false;
    } else if (!std::isfinite(a[i])) {
      return false;
    }
  }
  return true;
}

// Real geev packs a complex pair's eigenvectors into two real columns (real part, then
// imaginary part of the first of the pair; the second is its conjugate): unpacked here
// into n complex columns, as jaxlib returns them.
template <class R>
void unpackEigenvectors(int64_t n, const R* imag, const R* packed, std::complex<R>* out) {
  for (int64_t j = 0; j < n; ++j) {
    const R* col = packed + j * n;
    if (imag[j] == 0 || j + 1 == n) {
      for (int64_t r = 0; r < n; ++r) out[j * n + r] = col[r];
      continue;
    }
    const R* next = col + n;
    for (int64_t r = 0; r < n; ++r) {
      out[j * n + r] = std::complex<R>(col[r], next[r]);
      out[(j + 1) * n + r] = std::complex<R>(col[r], -next[r]);
    }
    ++j;
  }
}

}  // namespace

// geev(a) -> real types: (wr, wi, vl, vr, info) with complex eigenvectors; complex types:
// (w, vl, vr, info). A matrix with a NaN or infinity is not passed to LAPACK: info -4.
// Eigenvectors are unit columns (vr: A v = lambda v; vl: u^H A = lambda u^H).
void runGeev(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    using R = Real<T>;
    const Batch x = batchOf(call.operands[0]);
    const Int n = toInt(x.cols);
    const int64_t size = x.cols * x.cols;
    std::vector<T> copy = scratch<T>(size);
    T query{};
    if constexpr (kComplex<T>) {
      R rworkQuery[1];  // (LAPACK writes to rwork even when asked for the size)
      geev(call.computeLeft, call.computeRight, n, nullptr, leading(n), nullptr, nullptr,
           leading(n), nullptr, leading(n), &query, -1, rworkQuery);
    } else {
      geev(call.computeLeft, call.computeRight, n, nullptr, leading(n), nullptr, nullptr, nullptr,
           leading(n), nullptr, leading(n), &query, -1);
    }
    const Int lwork = queriedSize(query);
    std::vector<T> work = scratch<T>(lwork);
    const T* a = in<T>(b, 0);
    if constexpr (kComplex<T>) {
      std::vector<R> rwork = scratch<R>(2 * x.cols);
      T* w = out<T>(b, 0);
      T* vl = out<T>(b, 1);
      T* vr = out<T>(b, 2);
      Int* info = out<Int>(b, 3);
      for (int64_t i = 0; i < x.count; ++i) {
        std::copy_n(a + i * size, size, copy.data());
        if (!allFinite(copy.data(), size)) {
          info[i] = -4;
          continue;
        }
        info[i] = geev(call.computeLeft, call.computeRight, n, copy.data(), leading(n),
                       w + i * x.cols, vl + i * size, leading(n), vr + i * size, leading(n),
                       work.data(), lwork, rwork.data());
      }
    } else {
      std::vector<T> packedLeft = scratch<T>(size), packedRight = scratch<T>(size);
      T* wr = out<T>(b, 0);
      T* wi = out<T>(b, 1);
      auto* vl = out<std::complex<R>>(b, 2);
      auto* vr = out<std::complex<R>>(b, 3);
      Int* info = out<Int>(b, 4);
      for (int64_t i = 0; i < x.count; ++i) {
        std::copy_n(a + i * size, size, copy.data());
        if (!allFinite(copy.data(), size)) {
          info[i] = -4;
          continue;
        }
        info[i] = geev(call.computeLeft, call.computeRight, n, copy.data(), leading(n),
                       wr + i * x.cols, wi + i * x.cols, packedLeft.data(), leading(n),
                       packedRight.data(), leading(n), work.data(), lwork);
        if (info[i] != 0) continue;
        if (call.computeLeft == 'V')
          unpackEigenvectors(x.cols, wi + i * x.cols, packedLeft.data(), vl + i * size);
        if (call.computeRight == 'V')
          unpackEigenvectors(x.cols, wi + i * x.cols, packedRight.data(), vr + i * size);
      }
    }
  });
}

// gees(a) -> real types: (t, z, wr, wi, sdim, info); complex types: (t, z, w, sdim,
// info), with A = Z T Z^H, T upper (quasi-)triangular. Without ordering (sort 'N', all
// jaxlib implements) sdim is 0; z stays zero for mode 'N'.
void runGees(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    using R = Real<T>;
    const Batch x = batchOf(call.operands[0]);
    const Int n = toInt(x.cols);
    const int64_t size = x.cols * x.cols;
    T* a = copyInto<T>(call, b, 0, 0);
    T* z = out<T>(b, 1);
    T query{};
    Int sdimQuery = 0;
    if constexpr (kComplex<T>) {
      gees(call.mode, n, nullptr, leading(n), &sdimQuery, nullptr, nullptr, leading(n), &query, -1,
           nullptr);
    } else {
      gees(call.mode, n, nullptr, leading(n), &sdimQuery, nullptr, nullptr, nullptr, leading(n),
           &query, -1);
    }
    const Int lwork = queriedSize(query);
    std::vector<T> work = scratch<T>(lwork);
    if constexpr (kComplex<T>) {
      std::vector<R> rwork = scratch<R>(x.cols);
      T* w = out<T>(b, 2);
      Int* sdim = out<Int>(b, 3);
      Int* info = out<Int>(b, 4);
      for (int64_t i = 0; i < x.count; ++i)
        info[i] = gees(call.mode, n, a + i * size, leading(n), sdim + i, w + i * x.cols,
                       z + i * size, leading(n), work.data(), lwork, rwork.data());
    } else {
      T* wr = out<T>(b, 2);
      T* wi = out<T>(b, 3);
      Int* sdim = out<Int>(b, 4);
      Int* info = out<Int>(b, 5);
      for (int64_t i = 0; i < x.count; ++i)
        info[i] = gees(call.mode, n, a + i * size, leading(n), sdim + i, wr + i * x.cols,
                       wi + i * x.cols, z + i * size, leading(n), work.data(), lwork);
    }
  });
}

// gehrd(a) -> (h with the reflectors below its first subdiagonal, n - 1 taus, info),
// reducing rows and columns low..high (1-based) as the attributes say.
void runGehrd(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    const Batch x = batchOf(call.operands[0]);
    const Int n = toInt(x.cols);
    const int64_t taus = std::max<int64_t>(x.cols - 1, 0);
    T* a = copyInto<T>(call, b, 0, 0);
    T* tau = out<T>(b, 1);
    Int* info = out<Int>(b, 2);
    T query{};
    gehrd(n, call.low, call.high, nullptr, leading(x.rows), nullptr, &query, -1);
    const Int lwork = queriedSize(query);
    std::vector<T> work = scratch<T>(lwork);
    for (int64_t i = 0; i < x.count; ++i)
      info[i] = gehrd(n, call.low, call.high, a + i * x.rows * x.cols, leading(x.rows),
                      tau + i * taus, work.data(), lwork);
  });
}

// sytrd / hetrd(a) -> (a with the reflectors in the `uplo` triangle, the real diagonal,
// the real off-diagonal, n - 1 taus, info).
void runSytrd(const LapackCall& call, const LapackBuffers& b) {
  byElementType(call.dtype, [&](auto t) {
    using T = decltype(t);
    using R = Real<T>;
    const Batch x = batchOf(call.operands[0]);
    const Int n = toInt(x.cols);
    const int64_t offDiagonal = std::max<int64_t>(x.cols - 1, 0);
    T* a = copyInto<T>(call, b, 0, 0);
    R* d = out<R>(b, 1);
    R* e = out<R>(b, 2);
    T* tau = out<T>(b, 3);
    Int* info = out<Int>(b, 4);
    T query{};
    sytrd(call.uplo, n, nullptr, leading(x.rows), nullptr, nullptr, nullptr, &query, -1);
    const Int lwork = queriedSize(query);
    std::vector<T> work = scratch<T>(lwork);
    for (int64_t i = 0; i < x.count; ++i)
      info[i] = sytrd(call.uplo, n, a + i * x.rows * x.cols, leading(x.rows), d + i * x.cols,
                      e + i * offDiagonal, tau + i * offDiagonal, work.data(), lwork);
  });
}

}  // namespace kiln::kernels
