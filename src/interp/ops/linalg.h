// What the linear-algebra kernel files share: element conversion into the accumulation
// type, transposing a tensor into a packed buffer and back, the multiply-add of each
// element type, and the registration functions of the files addLinalgKernels calls.
#pragma once

#include <vector>

#include "interp/kernels.h"

namespace kiln::interp {

void addConvolutionKernels(KernelTable& table);  // ops/convolution.cc
void addFftKernels(KernelTable& table);          // ops/fft.cc
void addSolveKernels(KernelTable& table);        // ops/solve.cc: triangular_solve, cholesky
void addBatchNormKernels(KernelTable& table);    // ops/batch_norm.cc


// x converted to T (a wider or equal type of the same kind; real <-> complex by parts).
template <class T, class In>
T convertElement(In x) {
  if constexpr (kIsComplex<T>) {
    using P = typename T::value_type;
    if constexpr (kIsComplex<In>) return T(static_cast<P>(x.real()), static_cast<P>(x.imag()));
    else return T(static_cast<P>(x), P(0));
  } else if constexpr (kIsComplex<In>) {
    return static_cast<T>(x.real());
  } else if constexpr (std::is_same_v<T, bool>) {
    return x != In(0);
  } else {
    return static_cast<T>(x);
  }
}

// Packed buffers hold T, except bytes for bool (std::vector<bool> has no data()).
template <class T>
using Store = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

// The elements of `lit` as T in the order of transpose(lit, perm): dimension i of the
// packed buffer is dimension perm[i] of `lit`.
template <class T>
std::vector<Store<T>> packAs(const Literal& lit, const std::vector<int64_t>& perm) {
  const Shape& shape = lit.shape();
  std::vector<Store<T>> out(static_cast<size_t>(lit.numElements()));
  if (out.empty()) return out;
  std::vector<int64_t> strides = stridesOf(shape);
  Shape packedShape;
  std::vector<int64_t> packedStrides;  // source stride of each packed dimension
  for (int64_t p : perm) {
    packedShape.push_back(shape[static_cast<size_t>(p)]);
    packedStrides.push_back(strides[static_cast<size_t>(p)]);
  }
  visitDType(lit.dtype(), [&](auto tag) {
    using In = typename decltype(tag)::type;
    Reader<In> r(lit);
    std::vector<int64_t> idx(perm.size(), 0);
    int64_t src = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = convertElement<T>(r[src]);
      // Advance the packed index, keeping the source offset in step.
      for (size_t d = idx.size(); d-- > 0;) {
        src += packedStrides[d];
        if (++idx[d] < packedShape[d]) break;
        src -= packedStrides[d] * packedShape[d];
        idx[d] = 0;
      }
    }
  });
  return out;
}

// Writes a packed buffer (dimension i = dimension perm[i] of `out`) into `out`.
template <class T>
void unpackTo(const std::vector<Store<T>>& packed, Literal& out, const std::vector<int64_t>& perm) {
  if (packed.empty()) return;
  const Shape& shape = out.shape();
  std::vector<int64_t> strides = stridesOf(shape);
  Shape packedShape;
  std::vector<int64_t> packedStrides;
  for (int64_t p : perm) {
    packedShape.push_back(shape[static_cast<size_t>(p)]);
    packedStrides.push_back(strides[static_cast<size_t>(p)]);
  }
  Writer<T> w(out);
  std::vector<int64_t> idx(perm.size(), 0);
  int64_t dst = 0;
  for (size_t i = 0; i < packed.size(); ++i) {
    w.set(dst, static_cast<T>(packed[i]));
    for (size_t d = idx.size(); d-- > 0;) {
      dst += packedStrides[d];
      if (++idx[d] < packedShape[d]) break;
      dst -= packedStrides[d] * packedShape[d];
      idx[d] = 0;
    }
  }
}

// acc + a * b with the element type's arithmetic (booleans: or of ands; integers wrap).
template <class T>
T mulAdd(T acc, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return acc || (a && b);
  else if constexpr (std::is_integral_v<T>) return wrapAdd(acc, wrapMul(a, b));
  else return acc + a * b;
}

}  // namespace kiln::interp
