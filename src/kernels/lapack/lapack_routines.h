// The kernel behind each LAPACK custom call, one per routine for all four element types,
// over buffers already in the layouts the call gives (column-major matrices, batch
// outermost, for what jaxlib emits). Each does what jaxlib's kernel does: copy the input
// into the output it overwrites, query the workspace once, then call LAPACK matrix by
// matrix, writing LAPACK's info per matrix. Results start zero-filled.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/lapack/fortran_lapack.h"
#include "kernels/lapack/lapack_call.h"
#include "support/error.h"

namespace kiln::kernels {

struct LapackBuffers {
  std::vector<const void*> operands;
  std::vector<void*> results;
};

void runGetrf(const LapackCall& call, const LapackBuffers& buffers);  // factorizations.cc
void runGeqrf(const LapackCall& call, const LapackBuffers& buffers);
void runOrgqr(const LapackCall& call, const LapackBuffers& buffers);
void runPotrf(const LapackCall& call, const LapackBuffers& buffers);
void runTrsm(const LapackCall& call, const LapackBuffers& buffers);
void runGtsv(const LapackCall& call, const LapackBuffers& buffers);
void runSyevd(const LapackCall& call, const LapackBuffers& buffers);  // eigen_decompositions.cc
void runGesdd(const LapackCall& call, const LapackBuffers& buffers);
void runGeev(const LapackCall& call, const LapackBuffers& buffers);
void runGees(const LapackCall& call, const LapackBuffers& buffers);
void runGehrd(const LapackCall& call, const LapackBuffers& buffers);
void runSytrd(const LapackCall& call, const LapackBuffers& buffers);

namespace lapack {

template <class T>
struct RealOf {
  using type = T;
};
template <class P>
struct RealOf<std::complex<P>> {
  using type = P;
};
template <class T>
using Real = typename RealOf<T>::type;
template <class T>
inline constexpr bool kComplex = !std::is_same_v<T, Real<T>>;

// Calls f(T{}) with the C++ type of a LAPACK element type.
template <class F>
void byElementType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::F32:
      return f(float{});
    case DType::F64:
      return f(double{});
    case DType::C64:
      return f(c32{});
    case DType::C128:
      return f(c64{});
    default:
      throw Error(ErrorKind::Internal, "a LAPACK call of " + std::string(name(dtype)));
  }
}

// A dimension as LAPACK's integer.
inline Int toInt(int64_t n) {
  if (n > INT32_MAX)
    throw Error(ErrorKind::Runtime, "a LAPACK dimension of " + std::to_string(n) + " (over 2^31)");
  return static_cast<Int>(n);
}
// A leading dimension: at least 1, as LAPACK requires even of empty matrices.
inline Int leading(int64_t n) {
  return std::max<Int>(1, toInt(n));
}

// The size a workspace query (lwork = -1) reported, rounded up: f32 holds it inexactly.
template <class T>
Int queriedSize(T reported) {
  const double size = static_cast<double>(std::real(reported));
  return std::max<Int>(1, toInt(static_cast<int64_t>(size * (1 + 1e-6)) + 1));
}

// The matrices of a [..., rows, cols] tensor.
struct Batch {
  int64_t count = 1, rows = 0, cols = 0;
};
inline Batch batchOf(const Type& type) {
  Batch b;
  const int64_t rank = type.rank();
  for (int64_t d = 0; d + 2 < rank; ++d) b.count *= type.dim(d);
  b.rows = type.dim(rank - 2);
  b.cols = type.dim(rank - 1);
  return b;
}

template <class T>
const T* in(const LapackBuffers& b, size_t i) {
  return static_cast<const T*>(b.operands[i]);
}
template <class T>
T* out(const LapackBuffers& b, size_t i) {
  return static_cast<T*>(b.results[i]);
}
// Operand `i` copied into result `r` (of the same type), which the routine overwrites.
template <class T>
T* copyInto(const LapackCall& call, const LapackBuffers& b, size_t i, size_t r) {
  std::memcpy(b.results[r], b.operands[i], static_cast<size_t>(call.operands[i].byteSize()));
  return out<T>(b, r);
}
template <class T>
std::vector<T> scratch(int64_t n) {
  return std::vector<T>(static_cast<size_t>(std::max<int64_t>(n, 1)));
}

}  // namespace lapack
}  // namespace kiln::kernels
