// dot_general on OpenBLAS, and the dispatch to convolutions (blas_dot.h).
#include "backends/cpu/blas_dot.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "backends/cpu/blas_convolution.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/threads.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::cpu {
namespace {

int64_t product(const Shape& shape, const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape[static_cast<size_t>(d)];
  return n;
}

Dims concat(Dims a, const Dims& b, const Dims& c) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

bool isIdentity(const Dims& order) {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// The elements of `lit` with its dimensions permuted: result dimension i is dimension
// order[i] of `lit`.
std::vector<uint8_t> permuted(const uint8_t* src, const Type& type, const Dims& order) {
  const Shape& shape = type.shape();
  const size_t bytes = static_cast<size_t>(storageBytes(type.dtype()));
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  std::vector<uint8_t> out(static_cast<size_t>(type.numElements()) * bytes);
  if (out.empty()) return out;
  std::vector<int64_t> index(order.size(), 0);  // over the permuted shape
  for (size_t linear = 0, n = static_cast<size_t>(type.numElements()); linear < n; ++linear) {
    int64_t from = 0;
    for (size_t i = 0; i < order.size(); ++i) from += index[i] * strides[static_cast<size_t>(order[i])];
    std::memcpy(out.data() + linear * bytes, src + static_cast<size_t>(from) * bytes, bytes);
    for (size_t i = order.size(); i-- > 0;) {
      if (++index[i] < shape[static_cast<size_t>(order[i])]) break;
      index[i] = 0;
    }
  }
  return out;
}

// One operand as GEMM reads it: a pointer to (batch, rows, cols) row-major matrices,
// possibly transposed.
struct Matrix {
  const uint8_t* data = nullptr;
  bool transposed = false;
  std::vector<uint8_t> copy;  // when the operand had to be reordered
};

// `order` is the GEMM order of the operand's dimensions; `swapped` the same order with
// the last two groups exchanged, which GEMM reads through its transpose flag.
Matrix asMatrix(const uint8_t* data, const Type& type, const Dims& order, const Dims& swapped) {
  Matrix m;
  if (isIdentity(order)) {
    m.data = data;
  } else if (isIdentity(swapped)) {
    m.data = data;
    m.transposed = true;
  } else {
    m.copy = permuted(data, type, order);
    m.data = m.copy.data();
  }
  return m;
}

template <class T>
void batchedGemm(const Matrix& a, const Matrix& b, T* c, int64_t batch, int64_t m, int64_t n, int64_t k) {
  const T* pa = reinterpret_cast<const T*>(a.data);
  const T* pb = reinterpret_cast<const T*>(b.data);
  for (int64_t i = 0; i < batch; ++i) {
    rowMajorGemm(std::is_same_v<T, float> ? DType::F32 : DType::F64, a.transposed, b.transposed, m, n, k,
                 pa + i * m * k, a.transposed ? m : k, pb + i * k * n, b.transposed ? k : n, c + i * m * n);
  }
}

}  // namespace

std::optional<std::string> blasDeclines(const Op& op) {
  if (op.is(ops::Convolution)) return convolutionOffBlas(op);
  if (!op.is(ops::DotGeneral) && !op.is(ops::Dot)) return "unsupported: " + std::string(op.name()) + " on BLAS";
  DType t = op.result()->type().dtype();
  if (t != DType::F32 && t != DType::F64) return "unsupported: dot_general of " + std::string(name(t)) + " on BLAS";
  if (op.operand(0)->type().dtype() != t || op.operand(1)->type().dtype() != t)
    return "unsupported: dot_general with a result type other than its operands' on BLAS";
  // GEMM takes 32-bit sizes.
  for (const Value* v : {op.operand(0), op.operand(1), op.result()})
    if (v->type().numElements() > (int64_t{1} << 31) - 1) return "unsupported: dot_general this large on BLAS";
  return std::nullopt;
}

void blasInto(const Op& op, const void* lhsData, const void* rhsData, void* outData) {
  threadCount();  // OpenBLAS gets the backend's thread count before its first call
  if (op.is(ops::Convolution)) {
    blasConvolutionInto(op, lhsData, rhsData, outData);
    return;
  }
  DotDims dims = DotDims::of(op);
  const Type& lt = op.operand(0)->type();
  const Type& rt = op.operand(1)->type();
  const Type& ot = op.result()->type();
  Dims lhsFree = dims.lhsFree(lt.rank());
  Dims rhsFree = dims.rhsFree(rt.rank());
  int64_t batch = product(lt.shape(), dims.lhsBatch);
  int64_t m = product(lt.shape(), lhsFree), k = product(lt.shape(), dims.lhsContracting);
  int64_t n = product(rt.shape(), rhsFree);
  if (batch * m * n == 0) return;
  if (k == 0) {  // an empty sum: zeros
    std::memset(outData, 0, static_cast<size_t>(ot.numElements() * storageBytes(ot.dtype())));
    return;
  }
  Matrix a = asMatrix(static_cast<const uint8_t*>(lhsData), lt, concat(dims.lhsBatch, lhsFree, dims.lhsContracting),
                      concat(dims.lhsBatch, dims.lhsContracting, lhsFree));
  Matrix b = asMatrix(static_cast<const uint8_t*>(rhsData), rt, concat(dims.rhsBatch, dims.rhsContracting, rhsFree),
                      concat(dims.rhsBatch, rhsFree, dims.rhsContracting));
  if (ot.dtype() == DType::F32) batchedGemm<float>(a, b, static_cast<float*>(outData), batch, m, n, k);
  else batchedGemm<double>(a, b, static_cast<double*>(outData), batch, m, n, k);
}

interp::HostValues blasRun(const Op& op, const interp::HostValues& operands) {
  Literal lhs = operands[0].tensor(), rhs = operands[1].tensor();
  Literal out(op.result()->type());
  // GEMM reads every element: splats are expanded (on these copies; others are read
  // where they are).
  blasInto(op, lhs.denseStorage(), rhs.denseStorage(), out.mutableStorage());
  return {std::move(out)};
}

}  // namespace kiln::cpu
