// The LAPACK and BLAS routines that JAX's CPU custom calls run, as the Fortran symbols
// Debian's OpenBLAS exports (sgetrf_, zheevd_, ...), declared here once, plus one
// overload per routine for each of float, double, complex<float> and complex<double>,
// so the kernels (lapack_routines.h) are written once as templates.
//
// gfortran passes the length of every CHARACTER argument as a hidden size_t after the
// others; leaving them out works until a callee tail-calls with them (GCC 9+), so they
// are passed (always 1). The complex types are std::complex, which has the layout of
// Fortran's COMPLEX. LOGICAL is a 4-byte int.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>

namespace kiln::kernels::lapack {

using Int = int32_t;  // OpenBLAS's LAPACK integers (LP64)
using c32 = std::complex<float>;
using c64 = std::complex<double>;
using Len = size_t;  // a hidden CHARACTER length

extern "C" {
// LU with partial pivoting.
void sgetrf_(const Int* m, const Int* n, float* a, const Int* lda, Int* ipiv, Int* info);
void dgetrf_(const Int* m, const Int* n, double* a, const Int* lda, Int* ipiv, Int* info);
void cgetrf_(const Int* m, const Int* n, c32* a, const Int* lda, Int* ipiv, Int* info);
void zgetrf_(const Int* m, const Int* n, c64* a, const Int* lda, Int* ipiv, Int* info);
// Cholesky.
void spotrf_(const char* uplo, const Int* n, float* a, const Int* lda, Int* info, Len);
void dpotrf_(const char* uplo, const Int* n, double* a, const Int* lda, Int* info, Len);
void cpotrf_(const char* uplo, const Int* n, c32* a, const Int* lda, Int* info, Len);
void zpotrf_(const char* uplo, const Int* n, c64* a, const Int* lda, Int* info, Len);
// QR: the reflectors, then Q from them.
void sgeqrf_(const Int* m, const Int* n, float* a, const Int* lda, float* tau, float* work,
             const Int* lwork, Int* info);
void dgeqrf_(const Int* m, const Int* n, double* a, const Int* lda, double* tau, double* work,
             const Int* lwork, Int* info);
void cgeqrf_(const Int* m, const Int* n, c32* a, const Int* lda, c32* tau, c32* work,
             const Int* lwork, Int* info);
void zgeqrf_(const Int* m, const Int* n, c64* a, const Int* lda, c64* tau, c64* work,
             const Int* lwork, Int* info);
void sorgqr_(const Int* m, const Int* n, const Int* k, float* a, const Int* lda, const float* tau,
             float* work, const Int* lwork, Int* info);
void dorgqr_(const Int* m, const Int* n, const Int* k, double* a, const Int* lda, const double* tau,
             double* work, const Int* lwork, Int* info);
void cungqr_(const Int* m, const Int* n, const Int* k, c32* a, const Int* lda, const c32* tau,
             c32* work, const Int* lwork, Int* info);
void zungqr_(const Int* m, const Int* n, const Int* k, c64* a, const Int* lda, const c64* tau,
             c64* work, const Int* lwork, Int* info);
// Triangular solve with several right-hand sides (BLAS 3).
void strsm_(const char* side, const char* uplo, const char* trans, const char* diag, const Int* m,
            const Int* n, const float* alpha, const float* a, const Int* lda, float* b,
            const Int* ldb, Len, Len, Len, Len);
void dtrsm_(const char* side, const char* uplo, const char* trans, const char* diag, const Int* m,
            const Int* n, const double* alpha, const double* a, const Int* lda, double* b,
            const Int* ldb, Len, Len, Len, Len);
void ctrsm_(const char* side, const char* uplo, const char* trans, const char* diag, const Int* m,
            const Int* n, const c32* alpha, const c32* a, const Int* lda, c32* b, const Int* ldb,
            Len, Len, Len, Len);
void ztrsm_(const char* side, const char* uplo, const char* trans, const char* diag, const Int* m,
            const Int* n, const c64* alpha, const c64* a, const Int* lda, c64* b, const Int* ldb,
            Len, Len, Len, Len);
// Symmetric / Hermitian eigen decomposition, divide and conquer.
void ssyevd_(const char* jobz, const char* uplo, const Int* n, float* a, const Int* lda, float* w,
             float* work, const Int* lwork, Int* iwork, const Int* liwork, Int* info, Len, Len);
void dsyevd_(const char* jobz, const char* uplo, const Int* n, double* a, const Int* lda, double* w,
             double* work, const Int* lwork, Int* iwork, const Int* liwork, Int* info, Len, Len);
void cheevd_(const char* jobz, const char* uplo, const Int* n, c32* a, const Int* lda, float* w,
             c32* work, const Int* lwork, float* rwork, const Int* lrwork, Int* iwork,
             const Int* liwork, Int* info, Len, Len);
void zheevd_(const char* jobz, const char* uplo, const Int* n, c64* a, const Int* lda, double* w,
             c64* work, const Int* lwork, double* rwork, const Int* lrwork, Int* iwork,
             const Int* liwork, Int* info, Len, Len);
// SVD, divide and conquer.
void sgesdd_(const char* jobz, const Int* m, const Int* n, float* a, const Int* lda, float* s,
             float* u, const Int* ldu, float* vt, const Int* ldvt, float* work, const Int* lwork,
             Int* iwork, Int* info, Len);
void dgesdd_(const char* jobz, const Int* m, const Int* n, double* a, const Int* lda, double* s,
             double* u, const Int* ldu, double* vt, const Int* ldvt, double* work, const Int* lwork,
             Int* iwork, Int* info, Len);
void cgesdd_(const char* jobz, const Int* m, const Int* n, c32* a, const Int* lda, float* s, c32* u,
             const Int* ldu, c32* vt, const Int* ldvt, c32* work, const Int* lwork, float* rwork,
             Int* iwork, Int* info, Len);
void zgesdd_(const char* jobz, const Int* m, const Int* n, c64* a, const Int* lda, double* s,
             c64* u, const Int* ldu, c64* vt, const Int* ldvt, c64* work, const Int* lwork,
             double* rwork, Int* iwork, Int* info, Len);
// General eigen decomposition.
void sgeev_(const char* jobvl, const char* jobvr, const Int* n, float* a, const Int* lda, float* wr,
            float* wi, float* vl, const Int* ldvl, float* vr, const Int* ldvr, float* work,
            const Int* lwork, Int* info, Len, Len);
void dgeev_(const char* jobvl, const char* jobvr, const Int* n, double* a, const Int* lda,
            double* wr, double* wi, double* vl, const Int* ldvl, double* vr, const Int* ldvr,
            double* work, const Int* lwork, Int* info, Len, Len);
void cgeev_(const char* jobvl, const char* jobvr, const Int* n, c32* a, const Int* lda, c32* w,
            c32* vl, const Int* ldvl, c32* vr, const Int* ldvr, c32* work, const Int* lwork,
            float* rwork, Int* info, Len, Len);
void zgeev_(const char* jobvl, const char* jobvr, const Int* n, c64* a, const Int* lda, c64* w,
            c64* vl, const Int* ldvl, c64* vr, const Int* ldvr, c64* work, const Int* lwork,
            double* rwork, Int* info, Len, Len);
// Schur decomposition (no eigenvalue ordering: `select` is never called, so void*).
void sgees_(const char* jobvs, const char* sort, void* select, const Int* n, float* a,
            const Int* lda, Int* sdim, float* wr, float* wi, float* vs, const Int* ldvs,
            float* work, const Int* lwork, Int* bwork, Int* info, Len, Len);
void dgees_(const char* jobvs, const char* sort, void* select, const Int* n, double* a,
            const Int* lda, Int* sdim, double* wr, double* wi, double* vs, const Int* ldvs,
            double* work, const Int* lwork, Int* bwork, Int* info, Len, Len);
void cgees_(const char* jobvs, const char* sort, void* select, const Int* n, c32* a, const Int* lda,
            Int* sdim, c32* w, c32* vs, const Int* ldvs, c32* work, const Int* lwork, float* rwork,
            Int* bwork, Int* info, Len, Len);
void zgees_(const char* jobvs, const char* sort, void* select, const Int* n, c64* a, const Int* lda,
            Int* sdim, c64* w, c64* vs, const Int* ldvs, c64* work, const Int* lwork, double* rwork,
            Int* bwork, Int* info, Len, Len);
// Hessenberg reduction.
void sgehrd_(const Int* n, const Int* ilo, const Int* ihi, float* a, const Int* lda, float* tau,
             float* work, const Int* lwork, Int* info);
void dgehrd_(const Int* n, const Int* ilo, const Int* ihi, double* a, const Int* lda, double* tau,
             double* work, const Int* lwork, Int* info);
void cgehrd_(const Int* n, const Int* ilo, const Int* ihi, c32* a, const Int* lda, c32* tau,
             c32* work, const Int* lwork, Int* info);
void zgehrd_(const Int* n, const Int* ilo, const Int* ihi, c64* a, const Int* lda, c64* tau,
             c64* work, const Int* lwork, Int* info);
// Symmetric / Hermitian tridiagonal reduction.
void ssytrd_(const char* uplo, const Int* n, float* a, const Int* lda, float* d, float* e,
             float* tau, float* work, const Int* lwork, Int* info, Len);
void dsytrd_(const char* uplo, const Int* n, double* a, const Int* lda, double* d, double* e,
             double* tau, double* work, const Int* lwork, Int* info, Len);
void chetrd_(const char* uplo, const Int* n, c32* a, const Int* lda, float* d, float* e, c32* tau,
             c32* work, const Int* lwork, Int* info, Len);
void zhetrd_(const char* uplo, const Int* n, c64* a, const Int* lda, double* d, double* e, c64* tau,
             c64* work, const Int* lwork, Int* info, Len);
// General tridiagonal solve.
void sgtsv_(const Int* n, const Int* nrhs, float* dl, float* d, float* du, float* b, const Int* ldb,
            Int* info);
void dgtsv_(const Int* n, const Int* nrhs, double* dl, double* d, double* du, double* b,
            const Int* ldb, Int* info);
void cgtsv_(const Int* n, const Int* nrhs, c32* dl, c32* d, c32* du, c32* b, const Int* ldb,
            Int* info);
void zgtsv_(const Int* n, const Int* nrhs, c64* dl, c64* d, c64* du, c64* b, const Int* ldb,
            Int* info);
}

// ---- overloads by element type (the scalar arguments by value; info returned) ----

#define KILN_LAPACK_GETRF(T, f)                              \
  inline Int getrf(Int m, Int n, T* a, Int lda, Int* ipiv) { \
    Int info = 0;                                            \
    f(&m, &n, a, &lda, ipiv, &info);                         \
    return info;                                             \
  }
KILN_LAPACK_GETRF(float, sgetrf_)
KILN_LAPACK_GETRF(double, dgetrf_)
KILN_LAPACK_GETRF(c32, cgetrf_)
KILN_LAPACK_GETRF(c64, zgetrf_)
#undef KILN_LAPACK_GETRF

#define KILN_LAPACK_POTRF(T, f)                       \
  inline Int potrf(char uplo, Int n, T* a, Int lda) { \
    Int info = 0;                                     \
    f(&uplo, &n, a, &lda, &info, 1);                  \
    return info;                                      \
  }
KILN_LAPACK_POTRF(float, spotrf_)
KILN_LAPACK_POTRF(double, dpotrf_)
KILN_LAPACK_POTRF(c32, cpotrf_)
KILN_LAPACK_POTRF(c64, zpotrf_)
#undef KILN_LAPACK_POTRF

#define KILN_LAPACK_GEQRF(T, f)                                               \
  inline Int geqrf(Int m, Int n, T* a, Int lda, T* tau, T* work, Int lwork) { \
    Int info = 0;                                                             \
    f(&m, &n, a, &lda, tau, work, &lwork, &info);                             \
    return info;                                                              \
  }
KILN_LAPACK_GEQRF(float, sgeqrf_)
KILN_LAPACK_GEQRF(double, dgeqrf_)
KILN_LAPACK_GEQRF(c32, cgeqrf_)
KILN_LAPACK_GEQRF(c64, zgeqrf_)
#undef KILN_LAPACK_GEQRF

#define KILN_LAPACK_ORGQR(T, f)                                                            \
  inline Int orgqr(Int m, Int n, Int k, T* a, Int lda, const T* tau, T* work, Int lwork) { \
    Int info = 0;                                                                          \
    f(&m, &n, &k, a, &lda, tau, work, &lwork, &info);                                      \
    return info;                                                                           \
  }
KILN_LAPACK_ORGQR(float, sorgqr_)
KILN_LAPACK_ORGQR(double, dorgqr_)
KILN_LAPACK_ORGQR(c32, cungqr_)
KILN_LAPACK_ORGQR(c64, zungqr_)
#undef KILN_LAPACK_ORGQR

#define KILN_BLAS_TRSM(T, f)                                                                       \
  inline void trsm(char side, char uplo, char trans, char diag, Int m, Int n, T alpha, const T* a, \
                   Int lda, T* b, Int ldb) {                                                       \
    f(&side, &uplo, &trans, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);                  \
  }
KILN_BLAS_TRSM(float, strsm_)
KILN_BLAS_TRSM(double, dtrsm_)
KILN_BLAS_TRSM(c32, ctrsm_)
KILN_BLAS_TRSM(c64, ztrsm_)
#undef KILN_BLAS_TRSM

// syevd (real) and heevd (complex): `rwork` is unused for real types.
inline Int syevd(char jobz, char uplo, Int n, float* a, Int lda, float* w, float* work, Int lwork,
                 float*, Int, Int* iwork, Int liwork) {
  Int info = 0;
  ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  return info;
}
inline Int syevd(char jobz, char uplo, Int n, double* a, Int lda, double* w, double* work,
                 Int lwork, double*, Int, Int* iwork, Int liwork) {
  Int info = 0;
  dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  return info;
}
inline Int syevd(char jobz, char uplo, Int n, c32* a, Int lda, float* w, c32* work, Int lwork,
                 float* rwork, Int lrwork, Int* iwork, Int liwork) {
  Int info = 0;
  cheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info, 1, 1);
  return info;
}
inline Int syevd(char jobz, char uplo, Int n, c64* a, Int lda, double* w, c64* work, Int lwork,
                 double* rwork, Int lrwork, Int* iwork, Int liwork) {
  Int info = 0;
  zheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info, 1, 1);
  return info;
}

// gesdd: `rwork` is unused for real types.
inline Int gesdd(char jobz, Int m, Int n, float* a, Int lda, float* s, float* u, Int ldu, float* vt,
                 Int ldvt, float* work, Int lwork, float*, Int* iwork) {
  Int info = 0;
  sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
  return info;
}
inline Int gesdd(char jobz, Int m, Int n, double* a, Int lda, double* s, double* u, Int ldu,
                 double* vt, Int ldvt, double* work, Int lwork, double*, Int* iwork) {
  Int info = 0;
  dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
  return info;
}
inline Int gesdd(char jobz, Int m, Int n, c32* a, Int lda, float* s, c32* u, Int ldu, c32* vt,
                 Int ldvt, c32* work, Int lwork, float* rwork, Int* iwork) {
  Int info = 0;
  cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, &info, 1);
  return info;
}
inline Int gesdd(char jobz, Int m, Int n, c64* a, Int lda, double* s, c64* u, Int ldu, c64* vt,
                 Int ldvt, c64* work, Int lwork, double* rwork, Int* iwork) {
  Int info = 0;
  zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, &info, 1);
  return info;
}

// geev, real: eigenvalues as real and imaginary parts, eigenvectors packed in real form.
inline Int geev(char jobvl, char jobvr, Int n, float* a, Int lda, float* wr, float* wi, float* vl,
                Int ldvl, float* vr, Int ldvr, float* work, Int lwork) {
  Int info = 0;
  sgeev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, work, &lwork, &info, 1, 1);
  return info;
}
inline Int geev(char jobvl, char jobvr, Int n, double* a, Int lda, double* wr, double* wi,
                double* vl, Int ldvl, double* vr, Int ldvr, double* work, Int lwork) {
  Int info = 0;
  dgeev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, work, &lwork, &info, 1, 1);
  return info;
}
// geev, complex.
inline Int geev(char jobvl, char jobvr, Int n, c32* a, Int lda, c32* w, c32* vl, Int ldvl, c32* vr,
                Int ldvr, c32* work, Int lwork, float* rwork) {
  Int info = 0;
  cgeev_(&jobvl, &jobvr, &n, a, &lda, w, vl, &ldvl, vr, &ldvr, work, &lwork, rwork, &info, 1, 1);
  return info;
}
inline Int geev(char jobvl, char jobvr, Int n, c64* a, Int lda, c64* w, c64* vl, Int ldvl, c64* vr,
                Int ldvr, c64* work, Int lwork, double* rwork) {
  Int info = 0;
  zgeev_(&jobvl, &jobvr, &n, a, &lda, w, vl, &ldvl, vr, &ldvr, work, &lwork, rwork, &info, 1, 1);
  return info;
}

// gees without ordering (sort = 'N'), real and complex.
inline Int gees(char jobvs, Int n, float* a, Int lda, Int* sdim, float* wr, float* wi, float* vs,
                Int ldvs, float* work, Int lwork) {
  Int info = 0;
  const char sort = 'N';
  sgees_(&jobvs, &sort, nullptr, &n, a, &lda, sdim, wr, wi, vs, &ldvs, work, &lwork, nullptr, &info,
         1, 1);
  return info;
}
inline Int gees(char jobvs, Int n, double* a, Int lda, Int* sdim, double* wr, double* wi,
                double* vs, Int ldvs, double* work, Int lwork) {
  Int info = 0;
  const char sort = 'N';
  dgees_(&jobvs, &sort, nullptr, &n, a, &lda, sdim, wr, wi, vs, &ldvs, work, &lwork, nullptr, &info,
         1, 1);
  return info;
}
inline Int gees(char jobvs, Int n, c32* a, Int lda, Int* sdim, c32* w, c32* vs, Int ldvs, c32* work,
                Int lwork, float* rwork) {
  Int info = 0;
  const char sort = 'N';
  cgees_(&jobvs, &sort, nullptr, &n, a, &lda, sdim, w, vs, &ldvs, work, &lwork, rwork, nullptr,
         &info, 1, 1);
  return info;
}
inline Int gees(char jobvs, Int n, c64* a, Int lda, Int* sdim, c64* w, c64* vs, Int ldvs, c64* work,
                Int lwork, double* rwork) {
  Int info = 0;
  const char sort = 'N';
  zgees_(&jobvs, &sort, nullptr, &n, a, &lda, sdim, w, vs, &ldvs, work, &lwork, rwork, nullptr,
         &info, 1, 1);
  return info;
}

#define KILN_LAPACK_GEHRD(T, f)                                                          \
  inline Int gehrd(Int n, Int ilo, Int ihi, T* a, Int lda, T* tau, T* work, Int lwork) { \
    Int info = 0;                                                                        \
    f(&n, &ilo, &ihi, a, &lda, tau, work, &lwork, &info);                                \
    return info;                                                                         \
  }
KILN_LAPACK_GEHRD(float, sgehrd_)
KILN_LAPACK_GEHRD(double, dgehrd_)
KILN_LAPACK_GEHRD(c32, cgehrd_)
KILN_LAPACK_GEHRD(c64, zgehrd_)
#undef KILN_LAPACK_GEHRD

#define KILN_LAPACK_SYTRD(T, R, f)                                                            \
  inline Int sytrd(char uplo, Int n, T* a, Int lda, R* d, R* e, T* tau, T* work, Int lwork) { \
    Int info = 0;                                                                             \
    f(&uplo, &n, a, &lda, d, e, tau, work, &lwork, &info, 1);                                 \
    return info;                                                                              \
  }
KILN_LAPACK_SYTRD(float, float, ssytrd_)
KILN_LAPACK_SYTRD(double, double, dsytrd_)
KILN_LAPACK_SYTRD(c32, float, chetrd_)
KILN_LAPACK_SYTRD(c64, double, zhetrd_)
#undef KILN_LAPACK_SYTRD

#define KILN_LAPACK_GTSV(T, f)                                          \
  inline Int gtsv(Int n, Int nrhs, T* dl, T* d, T* du, T* b, Int ldb) { \
    Int info = 0;                                                       \
    f(&n, &nrhs, dl, d, du, b, &ldb, &info);                            \
    return info;                                                        \
  }
KILN_LAPACK_GTSV(float, sgtsv_)
KILN_LAPACK_GTSV(double, dgtsv_)
KILN_LAPACK_GTSV(c32, cgtsv_)
KILN_LAPACK_GTSV(c64, zgtsv_)
#undef KILN_LAPACK_GTSV

}  // namespace kiln::kernels::lapack
